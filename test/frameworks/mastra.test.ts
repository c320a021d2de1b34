// The Mastra adapter driven by Mastra itself: a real Agent (the README's example) with the AI
// SDK's own mock model, which keeps calling the same tool with the same arguments, against a
// real broker, registry and `loopguard run` (default thresholds, escalation after 5 blocks as
// in the starter config). Mastra needs Node >= 22.13, so each scenario runs in a Node 24 child
// process (test/hosts/mastra/drive.mjs) and this file checks what it observed.
import { beforeAll, describe, expect, it } from 'vitest';
import { clientOptions, lg, lgOk, ready, world, type World } from '../helpers/harness.js';
import { driveMastra, installMastra } from './mastraHost.js';

interface Part {
  readonly type: string;
  readonly toolCallId?: string;
  readonly text?: string;
  readonly output?: { readonly type: string; readonly value?: unknown };
}
type Prompt = ReadonlyArray<{ readonly role: string; readonly content: string | readonly Part[] }>;
interface Observed {
  readonly runId: string;
  readonly tripwire: { readonly reason: string; readonly processorId?: string } | null;
  readonly steps: ReadonlyArray<{ readonly toolResults: readonly unknown[] }>;
  readonly prompts: readonly Prompt[];
  readonly aborts: ReadonlyArray<Record<string, unknown>>;
  readonly reports?: ReadonlyArray<Record<string, unknown>>;
}

const textOf = (prompt: Prompt): string => JSON.stringify(prompt);
/** The tool result the model read for a call, from the tool messages in its input. */
function resultOf(prompt: Prompt, toolCallId: string): unknown {
  for (const m of prompt) {
    if (m.role !== 'tool' || typeof m.content === 'string') continue;
    const part = m.content.find((p) => p.type === 'tool-result' && p.toolCallId === toolCallId);
    if (part !== undefined) return part.output?.value;
  }
  return undefined;
}

describe('Mastra', () => {
  let w: World;
  beforeAll(async () => {
    installMastra();
    // An agent whose thresholds are low (warn 3, block 5), for the polls below.
    w = world('mastra', { agents: { list: [{ id: 'poller', tools: { loopDetection: { warningThreshold: 3, criticalThreshold: 5 } } }] } }, 3, {
      toolPolicy: { escalation: { abortAfterBlocks: 5 }, agents: { canary: { mode: 'shadow' } } },
    });
    await lgOk(['topics', 'create', '--config', w.configFile]);
    await ready(lg(['run', '--config', w.configFile]));
  }, 600_000);

  it('warns at the 11th identical call, answers the 21st with loopguard’s message, and ends the run with a tripwire on the escalation', async () => {
    const o = await driveMastra<Observed>({ scenario: 'example', client: clientOptions(w, 'closed'), chatId: 'chat-mastra-1' });

    // Calls 1-20 ran (their outputs, all equal, are what loopguard counts); the 11th warned.
    const ran = o.steps.flatMap((s) => s.toolResults).filter((r) => typeof r === 'string' && r.includes('export const retries'));
    expect(ran).toHaveLength(20);
    expect(textOf(o.prompts[10]!)).not.toContain('[loopguard]');
    const warned = o.prompts[11]!.at(-1)!;
    expect(warned.role).toBe('user');
    expect(textOf([warned])).toMatch(/readFile.*10|10.*readFile/s);

    // The 21st is not run: the model's next input holds loopguard's message as the call's result.
    const blocked = resultOf(o.prompts[21]!, 'call-21');
    expect(blocked).toContain('readFile');
    expect(blocked).toContain('generic_repeat');
    expect(blocked).toContain('20');

    // Five blocks end the run: Mastra's tripwire stops it, well before its own 40 steps.
    expect(o.aborts).toEqual([expect.objectContaining({ detector: 'block_escalation', count: 5, toolName: 'readFile' })]);
    expect(o.tripwire).toMatchObject({ reason: o.aborts[0]!.message });
    expect(o.steps.length).toBeGreaterThanOrEqual(25);
    expect(o.steps.length).toBeLessThan(40);
  });

  it('ends the run on Mastra’s finish, so a run id used again starts afresh', async () => {
    const { runs } = await driveMastra<{ runs: Observed[] }>({ scenario: 'rerun', client: clientOptions(w, 'closed'), chatId: 'chat-mastra-2', runId: 'mastra-run-fixed' });
    expect(runs.map((r) => r.runId)).toEqual(['mastra-run-fixed', 'mastra-run-fixed']);
    // The first run's 21st call was answered by loopguard; the second's first 20 ran again.
    expect(runs[0]!.steps).toHaveLength(21);
    expect(runs[0]!.steps[20]!.toolResults).toEqual([expect.stringContaining('generic_repeat')]);
    expect(runs[1]!.steps.slice(0, 20).every((s) => s.toolResults.length === 1 && String(s.toolResults[0]).includes('export const retries'))).toBe(true);
  });

  it('does the same in agent.stream: the 21st call answered with loopguard’s message, the run ended by a tripwire', async () => {
    const o = await driveMastra<Observed>({ scenario: 'stream', client: clientOptions(w, 'closed'), chatId: 'chat-mastra-4' });
    expect(resultOf(o.prompts[21]!, 'call-21')).toContain('generic_repeat');
    const mine = o.aborts.filter((a) => a.detector === 'block_escalation');
    expect(mine).toHaveLength(1);
    expect(o.tripwire).toMatchObject({ reason: mine[0]!.message });
    expect(o.steps.length).toBeLessThan(40);
  });

  it('runs every call of a shadow agent and reports what enforce mode would have done', async () => {
    const o = await driveMastra<Observed>({ scenario: 'example', client: clientOptions(w, 'closed'), chatId: 'chat-mastra-3', agentId: 'canary' });
    expect(o.steps).toHaveLength(40);
    expect(o.tripwire).toBeNull();
    expect(o.steps.every((s) => s.toolResults.length === 1 && String(s.toolResults[0]).includes('export const retries'))).toBe(true);
    expect(o.reports!.find((r) => (r.wouldHave as { decision: string }).decision === 'block')).toMatchObject({
      toolName: 'readFile',
      toolCallId: 'call-21',
      wouldHave: { detector: 'generic_repeat', count: 20 },
    });
    expect(o.reports![0]).toMatchObject({ toolCallId: 'call-11', wouldHave: { decision: 'warn', count: 10 }, run: { sessionKey: 'chat-mastra-3', agentId: 'canary' } });
  });

  it('never blocks a tool whose JSON output makes progress, and answers the 6th poll of one that does not', async () => {
    type Poll = Observed & { polls: number };
    const { moving, stuck } = await driveMastra<{ moving: Poll; stuck: Poll }>({ scenario: 'poll', client: clientOptions(w, 'closed'), chatId: 'chat-mastra-poll' });
    expect(moving.polls).toBe(8);
    expect(moving.steps.flatMap((s) => s.toolResults)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({ state: 'rolling', progress: 10 * n })));
    expect(stuck.polls).toBe(5);
    expect(resultOf(stuck.prompts[6]!, 'call-6')).toMatch(/generic_repeat.*deploymentStatus.*5 times/);
  });

  it('gives the calls of one step one turnId, and each step its own', async () => {
    type Asked = { asked: Array<{ toolCallId: string; turnId: string | null }> };
    const { asked } = await driveMastra<Asked>({ scenario: 'turns', client: clientOptions(w, 'closed'), chatId: 'chat-mastra-turns' });
    expect(asked.toSorted((a, b) => a.toolCallId.localeCompare(b.toolCallId))).toEqual([
      { toolCallId: 'a1', turnId: 'step-0' },
      { toolCallId: 'a2', turnId: 'step-0' },
      { toolCallId: 'b1', turnId: 'step-1' },
    ]);
  });

  it('follows the runner’s failure policy when loopguard does not answer', async () => {
    const silent = world('mastra-silent');
    await lgOk(['topics', 'create', '--config', silent.configFile]);
    const closed = await driveMastra<Observed>({ scenario: 'oneStep', client: clientOptions(silent, 'closed', 200), chatId: 'chat-mastra-closed' });
    expect(closed.steps[0]!.toolResults).toEqual([expect.stringContaining('fails closed')]);
    const open = await driveMastra<Observed>({ scenario: 'oneStep', client: clientOptions(silent, 'open', 200), chatId: 'chat-mastra-open' });
    expect(open.steps[0]!.toolResults).toEqual([expect.stringContaining('export const retries')]);
  });
});
