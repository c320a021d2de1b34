// The AI SDK adapter driven by the AI SDK itself: generateText with the SDK's own mock model,
// which keeps calling the same tool with the same arguments, against a real broker, registry
// and `loopguard run` (default thresholds, escalation after 5 blocks as in the starter config).
import type { generateText } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoopguardRunner, type RunAbortNotice } from '../../sdk/index.js';
import type { WouldHaveReport } from '../../integrations/ai-sdk/index.js';
// @ts-expect-error -- the example is plain JavaScript, as a user would write it
import * as example from '../../examples/frameworks/ai-sdk.mjs';
import { clientOptions, lg, lgOk, ready, world, type World } from '../helpers/harness.js';

interface AnswerArgs {
  runner: LoopguardRunner;
  model: MockLanguageModelV4;
  chatId: string;
  prompt: string;
  agentId?: string;
  onWouldHave?: (r: WouldHaveReport) => void;
}
const answer = example.answer as (args: AnswerArgs) => ReturnType<typeof generateText>;

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** A model that asks to read the same file at every step, as a stuck agent does. */
function stuckModel(): MockLanguageModelV4 {
  let n = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: 'tool-call' as const, toolCallId: `call-${++n}`, toolName: 'readFile', input: JSON.stringify({ path: 'src/config.ts' }) }],
      finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
      usage,
      warnings: [],
    }),
  });
}

/** An agent whose thresholds are low (warn 3, block 5), for the polls below. */
const POLLER = { agents: { list: [{ id: 'poller', tools: { loopDetection: { warningThreshold: 3, criticalThreshold: 5 } } }] } };

/** A model that checks the same deployment at every step, as an agent waiting for a rollout does. */
function pollingModel(): MockLanguageModelV4 {
  let n = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: 'tool-call' as const, toolCallId: `call-${++n}`, toolName: 'deploymentStatus', input: JSON.stringify({ id: 'd1' }) }],
      finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
      usage,
      warnings: [],
    }),
  });
}

type Prompt = MockLanguageModelV4['doGenerateCalls'][number]['prompt'];
const textOf = (prompt: Prompt): string => JSON.stringify(prompt);
/** The denial the model received for a call, from the tool results in its input. */
function deniedReason(prompt: Prompt, toolCallId: string): string | undefined {
  for (const m of prompt) {
    if (m.role !== 'tool') continue;
    for (const part of m.content) {
      if (part.type === 'tool-result' && part.toolCallId === toolCallId && part.output.type === 'execution-denied') return part.output.reason;
    }
  }
  return undefined;
}

describe('Vercel AI SDK', () => {
  let w: World;
  let runner: LoopguardRunner;
  const aborts: RunAbortNotice[] = [];
  beforeAll(async () => {
    w = world('ai-sdk', POLLER, 3, { toolPolicy: { escalation: { abortAfterBlocks: 5 }, agents: { canary: { mode: 'shadow' } } } });
    await lgOk(['topics', 'create', '--config', w.configFile]);
    await ready(lg(['run', '--config', w.configFile]));
    runner = await LoopguardRunner.connect({ ...clientOptions(w, 'closed'), onAbort: (a) => aborts.push(a) });
  });
  afterAll(() => runner?.close());

  it('warns at the 11th identical call, denies the 21st with loopguard’s message, and stops the run on the escalation', async () => {
    const model = stuckModel();
    const result = await answer({ runner, model, chatId: 'chat-ai-1', prompt: 'What does src/config.ts set?' });
    const prompts = model.doGenerateCalls.map((c) => c.prompt);

    // Calls 1-20 ran (their outputs, all equal, are what loopguard counts); the 11th warned.
    const ran = result.steps.flatMap((s) => s.toolResults);
    expect(ran).toHaveLength(20);
    expect(textOf(prompts[10]!)).not.toContain('[loopguard]');
    const warned = prompts[11]!.at(-1)!;
    expect(warned.role).toBe('user');
    expect(textOf([warned])).toMatch(/readFile.*10|10.*readFile/s);

    // The 21st is denied: the model's next input holds loopguard's message as the call's result.
    const blocked = deniedReason(prompts[21]!, 'call-21');
    expect(blocked).toContain('readFile');
    expect(blocked).toContain('generic_repeat');
    expect(blocked).toContain('20');

    // Five blocks end the run; the AI SDK stops at loopguard's stop condition, well before its own 40 steps.
    expect(aborts).toEqual([expect.objectContaining({ detector: 'block_escalation', count: 5, toolName: 'readFile' })]);
    expect(result.steps.length).toBeGreaterThanOrEqual(25);
    expect(result.steps.length).toBeLessThan(40);
    expect(result.steps.at(-1)!.content.some((p) => p.type === 'tool-approval-response' && !p.approved)).toBe(true);
  });

  it('ends the run on the AI SDK’s end, so a run id used again starts afresh', async () => {
    const model = stuckModel();
    const { generateText, isStepCount, tool } = await import('ai');
    const { z } = await import('zod');
    const { loopguardForAiSdk } = await import('../../integrations/ai-sdk/index.js');
    const tools = { readFile: tool({ inputSchema: z.object({ path: z.string() }), execute: async () => 'same' }) };
    const once = async () => {
      const guard = loopguardForAiSdk(runner, { runId: 'ai-run-fixed', sessionKey: 'chat-ai-2', agentId: 'coder' });
      return generateText({ model, prompt: 'go', tools, ...guard.settings, stopWhen: [isStepCount(21), guard.stopWhen] });
    };
    const first = await once();
    expect(first.steps.at(-1)!.content.some((p) => p.type === 'tool-approval-response' && !p.approved)).toBe(true);
    const second = await once();
    expect(second.steps.slice(0, 20).every((s) => s.toolResults.length === 1)).toBe(true);
  });

  it('runs every call of a shadow agent and reports what enforce mode would have done', async () => {
    const reports: WouldHaveReport[] = [];
    const model = stuckModel();
    const result = await answer({ runner, model, chatId: 'chat-ai-3', prompt: 'go', agentId: 'canary', onWouldHave: (r: WouldHaveReport) => reports.push(r) });
    expect(result.steps).toHaveLength(40);
    expect(result.steps.every((s) => s.toolResults.length === 1)).toBe(true);
    expect(reports.find((r) => r.wouldHave.decision === 'block')).toMatchObject({
      toolName: 'readFile',
      toolCallId: 'call-21',
      wouldHave: { detector: 'generic_repeat', count: 20 },
    });
    expect(reports[0]).toMatchObject({ toolCallId: 'call-11', wouldHave: { decision: 'warn', count: 10 }, run: { sessionKey: 'chat-ai-3', agentId: 'canary' } });
  });

  it('never blocks a tool whose JSON result makes progress, and denies the 6th poll of one that does not', async () => {
    const { generateText, isStepCount, tool } = await import('ai');
    const { z } = await import('zod');
    const { loopguardForAiSdk } = await import('../../integrations/ai-sdk/index.js');
    const poll = async (progress: (n: number) => number) => {
      let polls = 0;
      const tools = { deploymentStatus: tool({ inputSchema: z.object({ id: z.string() }), execute: async () => ({ state: 'rolling', progress: progress(++polls) }) }) };
      const guard = loopguardForAiSdk(runner, { sessionKey: 'chat-ai-poll', agentId: 'poller' });
      const model = pollingModel();
      await generateText({ model, prompt: 'Tell me when d1 is rolled out.', tools, ...guard.settings, stopWhen: [isStepCount(8), guard.stopWhen] });
      return { polls, prompts: model.doGenerateCalls.map((c) => c.prompt) };
    };
    const moving = await poll((n) => 10 * n);
    expect(moving.polls).toBe(8);
    expect(moving.prompts.map((p, i) => deniedReason(p, `call-${i}`))).toEqual(Array(8).fill(undefined));
    const stuck = await poll(() => 40);
    expect(stuck.polls).toBe(5);
    expect(deniedReason(stuck.prompts[6]!, 'call-6')).toMatch(/generic_repeat.*deploymentStatus.*5 times/);
  });

  it('follows the runner’s failure policy when loopguard does not answer', async () => {
    const silent = world('ai-sdk-silent');
    await lgOk(['topics', 'create', '--config', silent.configFile]);
    for (const failure of ['closed', 'open'] as const) {
      const r = await LoopguardRunner.connect(clientOptions(silent, failure, 200));
      try {
        const model = stuckModel();
        const { generateText, isStepCount, tool } = await import('ai');
        const { z } = await import('zod');
        const { loopguardForAiSdk } = await import('../../integrations/ai-sdk/index.js');
        const guard = loopguardForAiSdk(r, { sessionKey: `chat-ai-${failure}` });
        const tools = { readFile: tool({ inputSchema: z.object({ path: z.string() }), execute: async () => 'same' }) };
        const result = await generateText({ model, prompt: 'go', tools, ...guard.settings, stopWhen: [isStepCount(1), guard.stopWhen] });
        if (failure === 'closed') expect(deniedReason(result.response.messages as Prompt, 'call-1')).toContain('fails closed');
        else expect(result.steps[0]!.toolResults).toHaveLength(1);
      } finally {
        await r.close();
      }
    }
  });
});
