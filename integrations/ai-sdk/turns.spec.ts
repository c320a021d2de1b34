// The AI SDK's own generateText and mock model drive the adapter; the runner records.
import { generateText, isStepCount, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recordingRunner } from '../../sdk/testing/recordingRunner.js';
import { loopguardForAiSdk } from './index.js';

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const call = (id: string, path: string) => ({ type: 'tool-call' as const, toolCallId: id, toolName: 'readFile', input: JSON.stringify({ path }) });

/** Step 0 asks for two reads together, step 1 for one, step 2 answers. */
function model(): MockLanguageModelV4 {
  const steps = [[call('a1', 'x'), call('a2', 'y')], [call('b1', 'x')]];
  let n = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => {
      const content = steps[n++];
      return content === undefined
        ? { content: [{ type: 'text' as const, text: 'done' }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] }
        : { content, finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' }, usage, warnings: [] };
    },
  });
}

describe('the AI SDK adapter’s turns', () => {
  it('gives the calls of one step one turnId, and each step its own', async () => {
    const { runner, calls } = recordingRunner();
    const guard = loopguardForAiSdk(runner, { sessionKey: 'chat-1' });
    const readFile = tool({ inputSchema: z.object({ path: z.string() }), execute: async ({ path }) => `contents of ${path}` });
    const r = await generateText({ model: model(), prompt: 'go', tools: { readFile }, ...guard.settings, stopWhen: [isStepCount(5), guard.stopWhen] });
    expect(r.text).toBe('done');
    expect(calls.map((c) => [c.toolCallId, c.turnId])).toEqual([
      ['a1', 'step-0'],
      ['a2', 'step-0'],
      ['b1', 'step-1'],
    ]);
  });
});
