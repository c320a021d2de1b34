import type { ToolExecutionEndEvent } from 'ai';
import { describe, expect, it } from 'vitest';
import { hashOutcome, hashValue } from '../../sdk/index.js';
import { outcomeOf } from './outcome.js';

type ToolOutput = ToolExecutionEndEvent['toolOutput'];
const result = (output: unknown) => ({ type: 'tool-result', output }) as ToolOutput;
const hashOf = (o: ToolOutput) => hashOutcome({ toolName: 'deploymentStatus', ...outcomeOf(o) })?.resultHash;

describe('the outcome of an AI SDK tool execution', () => {
  it('is a JSON output, hashed whole: a poll that makes progress never hashes the same', () => {
    const poll = (progress: number) => ({ state: 'rolling', progress });
    expect(outcomeOf(result(poll(40)))).toEqual({ result: poll(40) });
    expect(hashOf(result(poll(40)))).toBe(hashValue(poll(40)));
    expect(hashOf(result(poll(40)))).not.toBe(hashOf(result(poll(50))));
  });
  it('keeps what an MCP tool’s output carries beside text (images, structuredContent)', () => {
    const mcp = (data: string, n: number) => ({
      content: [
        { type: 'text', text: 'chart' },
        { type: 'image', data, mimeType: 'image/png' },
      ],
      structuredContent: { n },
    });
    expect(hashOf(result(mcp('AA==', 1)))).not.toBe(hashOf(result(mcp('AQ==', 1))));
    expect(hashOf(result(mcp('AA==', 1)))).not.toBe(hashOf(result(mcp('AA==', 2))));
    expect(hashOf(result(mcp('AA==', 1)))).toBe(hashOf(result(mcp('AA==', 1))));
  });
  it('is the error a tool threw', () => {
    const error = new Error('connection refused');
    expect(outcomeOf({ type: 'tool-error', error } as ToolOutput)).toEqual({ error });
  });
});
