// The OpenAI Agents SDK adapter driven by the Agents SDK itself: its runner, tools and guardrails,
// with a scripted model (the SDK's Model interface) that keeps calling the same tool with the
// same arguments, against a real broker, registry and `loopguard run` (default thresholds,
// escalation after 5 blocks as in the starter config).
import { MaxTurnsExceededError, Usage, type AgentInputItem, type Model, type ModelRequest, type ModelResponse, type RunResult } from '@openai/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoopguardRunner, type RunAbortNotice } from '../../sdk/index.js';
import type { WouldHaveReport } from '../../integrations/openai-agents/index.js';
// @ts-expect-error -- the example is plain JavaScript, as a user would write it
import * as example from '../../examples/frameworks/openai-agents.mjs';
import { clientOptions, lg, lgOk, ready, world } from '../helpers/harness.js';

interface AnswerArgs {
  runner: LoopguardRunner;
  model: Model;
  chatId: string;
  prompt: string;
  agentName?: string;
  onWouldHave?: (r: WouldHaveReport) => void;
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const answer = example.answer as (args: AnswerArgs) => Promise<RunResult<any, any>>;

/** A model that asks to read the same file (or make another call) at every turn, as a stuck agent does; it keeps each input it got. */
class StuckModel implements Model {
  readonly inputs: AgentInputItem[][] = [];
  constructor(private readonly call = { name: 'readFile', args: { path: 'src/config.ts' } as object }) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.inputs.push(typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input);
    const n = this.inputs.length;
    return {
      usage: new Usage(),
      output: [{ type: 'function_call', callId: `call-${n}`, name: this.call.name, arguments: JSON.stringify(this.call.args), status: 'completed' }],
      responseId: `response-${n}`,
    };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the scripted model does not stream');
  }
}

/** What the model was given as a call's output. */
function outputOf(input: AgentInputItem[], callId: string): string | undefined {
  const item = input.find((i) => i.type === 'function_call_result' && i.callId === callId);
  return item === undefined ? undefined : JSON.stringify((item as { output: unknown }).output);
}

describe('OpenAI Agents SDK', () => {
  let runner: LoopguardRunner;
  const aborts: RunAbortNotice[] = [];
  beforeAll(async () => {
    process.env.OPENAI_AGENTS_DISABLE_TRACING = '1';
    // An agent whose thresholds are low (warn 3, block 5), for the polls below.
    const w = world('openai-agents', { agents: { list: [{ id: 'poller', tools: { loopDetection: { warningThreshold: 3, criticalThreshold: 5 } } }] } }, 3, {
      toolPolicy: { escalation: { abortAfterBlocks: 5 }, agents: { canary: { mode: 'shadow' } } },
    });
    await lgOk(['topics', 'create', '--config', w.configFile]);
    await ready(lg(['run', '--config', w.configFile]));
    runner = await LoopguardRunner.connect({ ...clientOptions(w, 'closed'), onAbort: (a) => aborts.push(a) });
  });
  afterAll(() => runner?.close());

  it('warns at the 11th identical call, rejects the 21st with loopguard’s message, and trips the wire once loopguard ends the run', async () => {
    const model = new StuckModel();
    await expect(answer({ runner, model, chatId: 'chat-oa-1', prompt: 'What does src/config.ts set?' })).rejects.toThrow(/Tool input guardrail triggered: loopguard/);

    // Calls 1-20 ran (their outputs, all equal, are what loopguard counts); the 11th warned.
    expect(outputOf(model.inputs[10]!, 'call-10')).toContain('retries');
    expect(JSON.stringify(model.inputs[10])).not.toContain('[loopguard]');
    const warned = model.inputs[11]!.at(-1)!;
    expect(warned).toMatchObject({ role: 'user' });
    expect(JSON.stringify(warned)).toMatch(/readFile.*10|10.*readFile/s);

    // The 21st is rejected: the model's next input holds loopguard's message as the call's output.
    const blocked = outputOf(model.inputs[21]!, 'call-21');
    expect(blocked).toContain('readFile');
    expect(blocked).toContain('generic_repeat');
    expect(blocked).toContain('20');
    expect(blocked).not.toContain('retries');

    // Five blocks end the run: the next call trips the guardrail and the Agents SDK halts the run.
    expect(aborts).toEqual([expect.objectContaining({ detector: 'block_escalation', count: 5, toolName: 'readFile' })]);
    expect(model.inputs.length).toBeGreaterThanOrEqual(26);
    expect(model.inputs.length).toBeLessThan(40);
  });

  it('runs every call of a shadow agent and reports what enforce mode would have done', async () => {
    const reports: WouldHaveReport[] = [];
    const model = new StuckModel();
    await expect(answer({ runner, model, chatId: 'chat-oa-3', prompt: 'go', agentName: 'canary', onWouldHave: (r) => reports.push(r) })).rejects.toThrow(MaxTurnsExceededError);
    expect(model.inputs).toHaveLength(40);
    expect(outputOf(model.inputs[39]!, 'call-39')).toContain('retries');
    expect(reports.find((r) => r.wouldHave.decision === 'block')).toMatchObject({
      toolName: 'readFile',
      toolCallId: 'call-21',
      wouldHave: { detector: 'generic_repeat', count: 20 },
    });
    expect(reports[0]).toMatchObject({ toolCallId: 'call-11', wouldHave: { decision: 'warn', count: 10 }, run: { sessionKey: 'chat-oa-3', agentId: 'canary' } });
  });

  it('never blocks a tool whose JSON output makes progress, and rejects the 6th poll of one that does not', async () => {
    const { Agent, run, tool } = await import('@openai/agents');
    const { z } = await import('zod');
    const { loopguardForOpenAIAgents } = await import('../../integrations/openai-agents/index.js');
    const poll = async (progress: (n: number) => number) => {
      let polls = 0;
      const deploymentStatus = tool({
        name: 'deploymentStatus',
        description: 'The state of a deployment',
        parameters: z.object({ id: z.string() }),
        execute: async () => ({ state: 'rolling', progress: progress(++polls) }),
      });
      const model = new StuckModel({ name: 'deploymentStatus', args: { id: 'd1' } });
      const guard = loopguardForOpenAIAgents(runner, { sessionKey: 'chat-oa-poll' });
      const agent = new Agent({ name: 'poller', model, tools: guard.tools([deploymentStatus]) });
      await expect(run(agent, 'Tell me when d1 is rolled out.', { ...guard.runOptions, maxTurns: 8 })).rejects.toThrow(MaxTurnsExceededError);
      await guard.ended();
      return { polls, inputs: model.inputs };
    };
    const moving = await poll((n) => 10 * n);
    expect(moving.polls).toBe(8);
    expect(moving.inputs.slice(1).map((input, i) => outputOf(input, `call-${i + 1}`))).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => expect.stringContaining(`\\"progress\\":${10 * n}`)),
    );
    const stuck = await poll(() => 40);
    expect(stuck.polls).toBe(5);
    expect(outputOf(stuck.inputs[6]!, 'call-6')).toMatch(/generic_repeat.*deploymentStatus.*5 times/);
  });

  it('ends the run when the caller says so, so a run id used again starts afresh', async () => {
    const { Agent, run, tool } = await import('@openai/agents');
    const { z } = await import('zod');
    const { loopguardForOpenAIAgents } = await import('../../integrations/openai-agents/index.js');
    const readFile = tool({ name: 'readFile', description: 'read', parameters: z.object({ path: z.string() }), execute: async () => 'same' });
    const once = async (turns: number) => {
      const model = new StuckModel();
      const guard = loopguardForOpenAIAgents(runner, { runId: 'oa-run-fixed', sessionKey: 'chat-oa-2', agentId: 'coder' });
      const agent = new Agent({ name: 'coder', model, tools: guard.tools([readFile]) });
      await expect(run(agent, 'go', { ...guard.runOptions, maxTurns: turns })).rejects.toThrow(MaxTurnsExceededError);
      await guard.ended();
      return model;
    };
    expect(outputOf((await once(22)).inputs[21]!, 'call-21')).toContain('generic_repeat');
    expect(outputOf((await once(21)).inputs[20]!, 'call-20')).toBe(JSON.stringify({ type: 'text', text: 'same' }));
  });
});
