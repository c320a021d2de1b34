// The LangChain adapter driven by LangChain itself: createAgent with the middleware and
// LangChain's own fake tool-calling model, which keeps calling the same tool with the same
// arguments, against a real broker, registry and `loopguard run` (default thresholds, escalation
// after 5 blocks as in the starter config).
import { AIMessage, createAgent, fakeModel, summarizationMiddleware, tool, type BaseMessage } from 'langchain';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoopguardRunner, type RunAbortNotice } from '../../sdk/index.js';
import { loopguardMiddleware, type WouldHaveReport } from '../../integrations/langchain/index.js';
// @ts-expect-error -- the example is plain JavaScript, as a user would write it
import * as example from '../../examples/frameworks/langchain.mjs';
import { clientOptions as optionsOf, lg, lgOk, ready, world, type World } from '../helpers/harness.js';

const clientOptions = (w: World) => optionsOf(w, 'closed');

interface Agent {
  invoke(input: { messages: Array<{ role: string; content: string }> }, config: Record<string, unknown>): Promise<{ messages: BaseMessage[] }>;
}
interface CoderArgs {
  runner: LoopguardRunner;
  model: ReturnType<typeof fakeModel>;
  agentId?: string;
  onWouldHave?: (r: WouldHaveReport) => void;
}
const coder = example.coder as (args: CoderArgs) => Agent;

/** LangChain's fake model asking to read the same file at each of 40 turns, then answering; it keeps what it was given. */
function stuck(): { model: ReturnType<typeof fakeModel>; inputs: () => BaseMessage[][] } {
  const model = fakeModel();
  for (let i = 1; i <= 40; i++) model.respond(new AIMessage({ content: '', tool_calls: [{ id: `call-${i}`, name: 'readFile', args: { path: 'src/config.ts' } }] }));
  model.respond(new AIMessage('src/config.ts sets retries to 3.'));
  return { model, inputs: () => model.calls.map((c) => c.messages) };
}

/** The content the model was given as a call's output. */
function outputOf(messages: BaseMessage[], callId: string): string | undefined {
  const m = messages.find((x) => x.type === 'tool' && (x as unknown as { tool_call_id: string }).tool_call_id === callId);
  return m === undefined ? undefined : JSON.stringify(m.content);
}

describe('LangChain.js', () => {
  let runner: LoopguardRunner;
  const aborts: RunAbortNotice[] = [];
  beforeAll(async () => {
    // An agent whose thresholds are low (warn 3, block 5), for the polls below.
    const w = world('langchain', { agents: { list: [{ id: 'poller', tools: { loopDetection: { warningThreshold: 3, criticalThreshold: 5 } } }] } }, 3, {
      toolPolicy: { escalation: { abortAfterBlocks: 5 }, agents: { canary: { mode: 'shadow' } } },
    });
    await lgOk(['topics', 'create', '--config', w.configFile]);
    await ready(lg(['run', '--config', w.configFile]));
    runner = await LoopguardRunner.connect({ ...clientOptions(w), onAbort: (a) => aborts.push(a) });
  });
  afterAll(() => runner?.close());

  it('warns at the 11th identical call, answers the 21st with loopguard’s message, and ends the run on the escalation', async () => {
    const { model, inputs: calls } = stuck();
    const agent = coder({ runner, model });
    const out = await agent.invoke({ messages: [{ role: 'user', content: 'What does src/config.ts set?' }] }, { configurable: { thread_id: 'chat-lc-1' }, recursionLimit: 500 });
    const inputs = calls();

    // Calls 1-20 ran (their outputs, all equal, are what loopguard counts); the 11th warned, with its output.
    expect(outputOf(inputs[10]!, 'call-10')).not.toContain('[loopguard]');
    const warned = outputOf(inputs[11]!, 'call-11');
    expect(warned).toContain('retries');
    expect(warned).toMatch(/readFile.*10|10.*readFile/s);

    // The 21st never ran: the model's next input holds loopguard's message as the call's output.
    const blocked = outputOf(inputs[21]!, 'call-21');
    expect(blocked).toContain('generic_repeat');
    expect(blocked).toContain('20');
    expect(blocked).not.toContain('retries');

    // Five blocks end the run: the agent jumps to its end before asking the model again.
    expect(aborts).toEqual([expect.objectContaining({ detector: 'block_escalation', count: 5, toolName: 'readFile' })]);
    expect(inputs.length).toBeGreaterThanOrEqual(25);
    expect(inputs.length).toBeLessThan(40);
    expect(out.messages.at(-1)!.type).toBe('tool');
  });

  it('runs every call of a shadow agent and reports what enforce mode would have done', async () => {
    const reports: WouldHaveReport[] = [];
    const { model, inputs: calls } = stuck();
    const agent = coder({ runner, model, agentId: 'canary', onWouldHave: (r) => reports.push(r) });
    await agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, { configurable: { thread_id: 'chat-lc-3' }, recursionLimit: 500 });
    const inputs = calls();
    expect(inputs).toHaveLength(41);
    expect(outputOf(inputs[39]!, 'call-39')).toContain('retries');
    expect(reports.find((r) => r.wouldHave.decision === 'block')).toMatchObject({
      toolName: 'readFile',
      toolCallId: 'call-21',
      wouldHave: { detector: 'generic_repeat', count: 20 },
    });
    expect(reports[0]).toMatchObject({ toolCallId: 'call-11', wouldHave: { decision: 'warn', count: 10 }, run: { sessionKey: 'chat-lc-3', agentId: 'canary' } });
  });

  it('never blocks a tool whose JSON output or artifact makes progress, and answers the 6th poll of one that does not', async () => {
    const poll = async (answer: (n: number) => unknown, responseFormat: 'content' | 'content_and_artifact' = 'content') => {
      let polls = 0;
      const deploymentStatus = tool(async () => answer(++polls), {
        name: 'deploymentStatus',
        description: 'The state of a deployment',
        schema: z.object({ id: z.string() }),
        responseFormat,
      });
      const model = fakeModel();
      for (let i = 1; i <= 8; i++) model.respond(new AIMessage({ content: '', tool_calls: [{ id: `call-${i}`, name: 'deploymentStatus', args: { id: 'd1' } }] }));
      model.respond(new AIMessage('d1 is rolled out.'));
      const agent = createAgent({ model, tools: [deploymentStatus], middleware: [loopguardMiddleware(runner, { agentId: 'poller' })] });
      const out = await agent.invoke(
        { messages: [{ role: 'user', content: 'Tell me when d1 is rolled out.' }] },
        { configurable: { thread_id: 'chat-lc-poll' }, recursionLimit: 100 },
      );
      return { polls, out: out.messages };
    };
    // LangChain gives the model an object output as its JSON.
    const moving = await poll((n) => ({ state: 'rolling', progress: 10 * n }));
    expect(moving.polls).toBe(8);
    expect(outputOf(moving.out, 'call-8')).toContain('\\"progress\\":80');
    // A content_and_artifact tool whose text stays the same and whose artifact moves on.
    const artifact = await poll((n) => ['deployment d1 is rolling', { progress: 10 * n }], 'content_and_artifact');
    expect(artifact.polls).toBe(8);
    expect(outputOf(artifact.out, 'call-8')).toBe(JSON.stringify('deployment d1 is rolling'));
    const stuck = await poll(() => ({ state: 'rolling', progress: 40 }));
    expect(stuck.polls).toBe(5);
    expect(outputOf(stuck.out, 'call-6')).toMatch(/generic_repeat.*deploymentStatus.*5 times/);
  });

  it('reports LangChain’s summarisation as a compaction: the same loop after it ends the run', async () => {
    const { model, inputs: calls } = stuck();
    const summarizer = fakeModel();
    for (let i = 0; i < 5; i++) summarizer.respond(new AIMessage('The user asked what src/config.ts sets; readFile was called on it.'));
    const readFile = tool(async ({ path }) => `// ${path}\nexport const retries = 3;`, { name: 'readFile', description: 'Read a file', schema: z.object({ path: z.string() }) });
    const agent = createAgent({
      model,
      tools: [readFile],
      // Summarises once the history holds 12 messages, keeping the last call and its output.
      middleware: [summarizationMiddleware({ model: summarizer, trigger: { messages: 12 }, keep: { messages: 2 } }), loopguardMiddleware(runner, { agentId: 'coder' })],
    });
    const before = aborts.length;
    const out = await agent.invoke({ messages: [{ role: 'user', content: 'What does src/config.ts set?' }] }, { configurable: { thread_id: 'chat-lc-4' }, recursionLimit: 500 });
    const inputs = calls();

    // LangChain summarised once; the model's input held the summary from then on.
    expect(summarizer.calls).toHaveLength(1);
    const first = inputs.findIndex((messages) => messages.some((m) => m.additional_kwargs?.lc_source === 'summarization'));
    expect(first).toBeGreaterThan(0);
    // The three calls after the summary ran, with one output: loopguard ended the run on them (§2.6).
    const after = [first + 1, first + 2, first + 3].map((n) => `call-${n}`);
    for (const id of after) expect(outputOf(out.messages, id)).toContain('retries');
    const ended = aborts.slice(before);
    expect(ended).toEqual([
      expect.objectContaining({ detector: 'compaction_loop_persisted', count: 3, toolName: 'readFile', evidence: expect.objectContaining({ toolCallIds: after }) }),
    ]);
    // The run stopped there (at most one call later, answered with the abort's message), long before the repeat detector's 10.
    expect(inputs.length).toBeLessThanOrEqual(first + 4);
    const last = out.messages.at(-1)!;
    expect(last.type).toBe('tool');
    expect(JSON.stringify(last.content)).toContain(inputs.length === first + 4 ? ended[0]!.message.slice(0, 40) : 'retries');
  });
});
