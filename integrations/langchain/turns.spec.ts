// LangChain's own createAgent and fake model drive the middleware; the runner records.
import { AIMessage, createAgent, fakeModel, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recordingRunner } from '../../sdk/testing/recordingRunner.js';
import { loopguardMiddleware } from './index.js';

describe('the LangChain middleware’s turns', () => {
  it('gives the calls of one model response one turnId, and each response its own, in every invocation', async () => {
    const { runner, calls } = recordingRunner();
    const model = fakeModel();
    const asks = (...ids: string[]) => new AIMessage({ content: '', tool_calls: ids.map((id) => ({ id, name: 'readFile', args: { path: id } })) });
    model.respond(asks('a1', 'a2'));
    model.respond(asks('b1'));
    model.respond(new AIMessage('done'));
    model.respond(asks('c1'));
    model.respond(new AIMessage('done again'));
    const readFile = tool(async ({ path }: { path: string }) => `contents of ${path}`, { name: 'readFile', description: 'Reads a file', schema: z.object({ path: z.string() }) });
    const agent = createAgent({ model, tools: [readFile], middleware: [loopguardMiddleware(runner, { sessionKey: 'chat-1' })] });
    await agent.invoke({ messages: [{ role: 'user', content: 'go' }] });
    await agent.invoke({ messages: [{ role: 'user', content: 'again' }] });
    expect(calls.map((c) => [c.toolCallId, c.turnId])).toEqual([
      ['a1', 'turn-1'],
      ['a2', 'turn-1'],
      ['b1', 'turn-2'],
      ['c1', 'turn-1'],
    ]);
    // Each invocation is a run of its own.
    expect(new Set(calls.map((c) => c.runId)).size).toBe(2);
  });
});
