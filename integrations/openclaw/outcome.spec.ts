import { describe, expect, it } from 'vitest';
import { hashOutcome, hashValue } from '../../processors/toolLoop/hashing.js';
import type { AfterToolCallEvent } from './host.js';
import { reportedOf, type Reported } from './outcome.js';

const event = (toolName: string, result: unknown, error?: string): AfterToolCallEvent => ({ toolName, params: { command: 'make' }, toolCallId: 'c1', result, error });
const never = () => false;
/** The outcome published for a call that ran. */
const outcomeOf = (e: AfterToolCallEvent, warning: string | undefined) => {
  const r: Reported = reportedOf(e, 'c1', warning, never);
  return r.kind === 'outcome' ? r.outcome : undefined;
};
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
  it('is nothing for a call blocked before it ran by a plugin (ours, reported back as a failed call) or an approval', () => {
    for (const deniedReason of ['plugin-before-tool-call', 'plugin-approval']) {
      const blocked = event('exec', { content: [{ type: 'text', text: 'blocked' }], details: { status: 'blocked', deniedReason } }, 'blocked');
      expect(reportedOf(blocked, 'c1', undefined, never)).toEqual({ kind: 'none' });
    }
  });
});

describe('a call OpenClaw’s own loop detector blocked', () => {
  const critical = { content: [{ type: 'text', text: 'CRITICAL: Called read with identical outcomes 20 times.' }], details: { status: 'blocked', deniedReason: 'tool-loop' } };
  const inTurn = (trigger: string) => ({
    ...critical,
    details: { ...critical.details, intervention: { kind: 'critical-tool-loop', toolCallId: trigger, detector: 'generic_repeat', count: 20 } },
  });
  it('is a veto, whatever error text OpenClaw reports with it: its result, which the runner sends as one', () => {
    expect(reportedOf(event('read', critical, 'CRITICAL: Called read'), 'c1', undefined, never)).toEqual({ kind: 'veto', outcome: { result: critical } });
    expect(reportedOf(event('read', inTurn('c1')), 'c1', undefined, never)).toEqual({ kind: 'veto', outcome: { result: inTurn('c1') } });
  });
  it('in a turn blocked for another call, is a veto only with that call’s tool and arguments, as OpenClaw records it', () => {
    const asked: string[] = [];
    const same = (id: string) => (asked.push(id), id === 'c0');
    expect(reportedOf(event('read', inTurn('c0')), 'c1', undefined, same)).toMatchObject({ kind: 'veto' });
    expect(reportedOf(event('read', inTurn('c9')), 'c1', undefined, same)).toEqual({ kind: 'none' });
    expect(asked).toEqual(['c0', 'c9']);
  });
});
