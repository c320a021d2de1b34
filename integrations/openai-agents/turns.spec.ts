// The OpenAI Agents SDK's own run loop drives the guardrails, with a scripted model (the SDK's
// Model interface); the runner records.
import { Agent, run, tool, Usage, type Model, type ModelResponse } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recordingRunner } from '../../sdk/testing/recordingRunner.js';
import { loopguardForOpenAIAgents } from './index.js';

/** Asks for two reads together, then one, then answers. */
class TwoTurns implements Model {
  private n = 0;
  async getResponse(): Promise<ModelResponse> {
    const asks = [['a1', 'a2'], ['b1']][this.n++];
    const output =
      asks === undefined
        ? [{ type: 'message' as const, role: 'assistant' as const, status: 'completed' as const, content: [{ type: 'output_text' as const, text: 'done' }] }]
        : asks.map((callId) => ({ type: 'function_call' as const, callId, name: 'readFile', arguments: JSON.stringify({ path: callId }), status: 'completed' as const }));
    return { usage: new Usage(), output, responseId: `response-${this.n}` };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the scripted model does not stream');
  }
}

describe('the OpenAI Agents guardrails’ turns', () => {
  it('give the calls of one model response one turnId, and each response its own', async () => {
    process.env.OPENAI_AGENTS_DISABLE_TRACING = '1';
    const { runner, calls } = recordingRunner();
    const guard = loopguardForOpenAIAgents(runner, { sessionKey: 'chat-1' });
    const readFile = tool({ name: 'readFile', description: 'Reads a file', parameters: z.object({ path: z.string() }), execute: async ({ path }) => `contents of ${path}` });
    const agent = new Agent({ name: 'coder', model: new TwoTurns(), tools: guard.tools([readFile]) });
    const result = await run(agent, 'go', { ...guard.runOptions, maxTurns: 5 });
    expect(result.finalOutput).toBe('done');
    expect(calls.map((c) => [c.toolCallId, c.turnId])).toEqual([
      ['a1', 'turn-1'],
      ['a2', 'turn-1'],
      ['b1', 'turn-2'],
    ]);
  });
});
