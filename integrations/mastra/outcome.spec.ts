import { describe, expect, it } from 'vitest';
import { hashOutcome, hashValue } from '../../sdk/index.js';
import { outcomeOf } from './outcome.js';

// Mastra's `afterToolCall` context (`ToolHookContext`), as far as loopguard reads it: Mastra is
// not loaded here (it needs Node >= 22.13); test/frameworks/mastra.test.ts runs it for real.
const hashOf = (hook: { output?: unknown; error?: unknown }) => hashOutcome({ toolName: 'deploymentStatus', ...outcomeOf(hook) })?.resultHash;

describe('the outcome of a Mastra tool call', () => {
  it('is the output, hashed whole: a poll that makes progress never hashes the same', () => {
    const poll = (progress: number) => ({ output: { state: 'rolling', progress } });
    expect(outcomeOf(poll(40))).toEqual({ result: { state: 'rolling', progress: 40 } });
    expect(hashOf(poll(40))).toBe(hashValue({ state: 'rolling', progress: 40 }));
    expect(hashOf(poll(40))).not.toBe(hashOf(poll(50)));
  });
  it('keeps what an MCP tool’s output carries beside text', () => {
    const mcp = (n: number) => ({ output: { content: [{ type: 'text', text: 'ok' }], structuredContent: { n } } });
    expect(hashOf(mcp(1))).not.toBe(hashOf(mcp(2)));
  });
  it('is the error the tool threw', () => {
    const error = new Error('boom');
    expect(outcomeOf({ error, output: undefined })).toEqual({ error });
  });
});
