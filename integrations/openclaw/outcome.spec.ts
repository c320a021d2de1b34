import { describe, expect, it } from 'vitest';
import { hashOutcome, hashValue } from '../../processors/toolLoop/hashing.js';
import type { AfterToolCallEvent } from './host.js';
import { outcomeOf } from './outcome.js';

const event = (toolName: string, result: unknown, error?: string): AfterToolCallEvent => ({ toolName, params: { command: 'make' }, toolCallId: 'c1', result, error });
const exec = (aggregated: string, pid: number) => ({
  content: [{ type: 'text', text: aggregated }],
  details: { status: 'completed', exitCode: 0, aggregated, durationMs: pid * 3, pid, cwd: '/w' },
});

describe('the outcome of an OpenClaw tool call', () => {
  it('is the gateway’s result as OpenClaw reports it, hashed by the gateway’s rules', () => {
    const e = event('exec', exec('built 3 targets', 41));
    expect(outcomeOf(e, undefined)).toEqual({ result: e.result, error: undefined });
    // §2.2 rule 5: duration, pid and cwd never count; the output does.
    const hashOf = (r: unknown) => hashOutcome({ toolName: 'exec', args: { command: 'make' }, ...outcomeOf(event('exec', r), undefined) })?.resultHash;
    expect(hashOf(exec('built 3 targets', 41))).toBe(hashOf(exec('built 3 targets', 97)));
    expect(hashOf(exec('built 3 targets', 41))).not.toBe(hashOf(exec('built 4 targets', 41)));
    // A plugin tool's JSON, as OpenClaw's jsonResult shapes it, counts in `details` and in the text.
    const json = (progress: number) => ({ content: [{ type: 'text', text: JSON.stringify({ progress }) }], details: { progress } });
    expect(hashOutcome({ toolName: 'deploy_status', ...outcomeOf(event('deploy_status', json(40)), undefined) })?.resultHash).toBe(
      hashValue({ details: { progress: 40 }, text: '{"progress":40}' }),
    );
  });
  it('leaves out the warning loopguard appended to the result, and nothing else', () => {
    const warned = {
      content: [
        { type: 'text', text: 'out' },
        { type: 'image', data: 'AA==', mimeType: 'image/png' },
        { type: 'text', text: '[loopguard] careful' },
      ],
      details: { n: 1 },
    };
    expect(outcomeOf(event('read', warned), '[loopguard] careful')).toEqual({
      result: { content: [warned.content[0], warned.content[1]], details: { n: 1 } },
      error: undefined,
    });
  });
  it('is the error OpenClaw reports for a failed call', () => {
    expect(outcomeOf(event('exec', undefined, 'spawn make ENOENT'), undefined)).toEqual({ result: undefined, error: 'spawn make ENOENT' });
  });
  it('is nothing for a call blocked before it ran (our block, reported back as a failed call)', () => {
    expect(
      outcomeOf(event('exec', { content: [{ type: 'text', text: 'blocked' }], details: { status: 'blocked', deniedReason: 'plugin-before-tool-call' } }, 'blocked'), undefined),
    ).toBeUndefined();
  });
});
