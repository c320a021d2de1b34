// loopguard's own policy (docs/behaviour.md §4) on the real broker: a shadow-mode agent and an
// enforced one in the same stream, a slow bot loop suppressed and then released by a person,
// and every decision equal to what `loopguard replay` gives for the same file.
import { describe, expect, it } from 'vitest';
import { collectDecisions, lg, lgOk, replayOf, waitFor, world, writeEvents } from './helpers/harness.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);

function stuckRun(runId: string, agentId: string, calls: number, start: number): Record<string, unknown>[] {
  const args = { path: 'src/config.ts' };
  const base = { sessionKey: `agent:${agentId}:${runId}`, runId, agentId, toolName: 'read', args };
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < calls; i++) {
    out.push({ type: 'tool_call', ts: start + 2 * i, ...base, toolCallId: `${runId}-${i}`, eventId: `${runId}-c${i}` });
    out.push({ type: 'tool_outcome', ts: start + 2 * i + 1, ...base, toolCallId: `${runId}-${i}`, result: 'export const retries = 3;', eventId: `${runId}-o${i}` });
  }
  return out;
}

const room = { channel: 'matrix', accountId: '@deploy:acme.org', conversationId: '!ops:acme.org' };
const botMsg = (i: number) => ({ type: 'bot_message', ts: T0 + i * 120_000, ...room, senderId: '@triage:acme.org', receiverId: '@deploy:acme.org', eventId: `$m${i}` });

describe('policy on the real broker', () => {
  it('shadows one agent, enforces and escalates another, and lets a person end a slow bot loop, exactly as replay does', async () => {
    const w = world('policy', {}, 3, {
      toolPolicy: { escalation: { abortAfterBlocks: 3 }, agents: { canary: { mode: 'shadow' } } },
      botPolicy: { slowLoop: { maxBotMessages: 5, horizonSeconds: 3600 }, humanReset: true },
    });
    const slowLoop = [
      ...[0, 1, 2, 3, 4, 5, 6].map(botMsg),
      { type: 'human_message', ts: T0 + 7 * 120_000, ...room, senderId: '@alice:acme.org', eventId: '$h1' },
      botMsg(8),
      botMsg(9),
    ];
    const events = writeEvents(w.name, [...stuckRun('run-canary', 'canary', 25, T0), ...stuckRun('run-main', 'main', 25, T0 + 1), ...slowLoop]);
    const expected = await replayOf(w, events);
    const all = [...expected.values()];

    const canary = all.filter((d) => d.key === 'run-canary');
    expect(canary.filter((d) => d.decision === 'block').length).toBeGreaterThan(0);
    expect(canary.every((d) => d.shadow === true)).toBe(true);
    const main = all.filter((d) => d.key === 'run-main');
    expect(main.every((d) => d.shadow === null)).toBe(true);
    expect(main.filter((d) => d.type === 'run_abort').map((d) => [d.detector, d.count])).toEqual([['block_escalation', 3]]);
    expect(main.find((d) => d.type === 'run_abort')?.evidence).toMatchObject({ toolCallIds: ['run-main-20', 'run-main-21', 'run-main-22'] });

    const bots = all.filter((d) => d.type === 'bot_decision').sort((a, b) => Number(a.ts) - Number(b.ts));
    expect(bots.map((d) => d.reason ?? d.decision)).toEqual(['deliver', 'deliver', 'deliver', 'deliver', 'deliver', 'slow_loop', 'slow_loop', 'deliver', 'deliver']);
    expect(bots[5]!.evidence).toMatchObject({ since: T0, count: 6, senders: ['@triage:acme.org'] });

    await lgOk(['topics', 'create', '--config', w.configFile]);
    await lgOk(['produce', '--config', w.configFile, events]);
    const run = lg(['run', '--config', w.configFile]);
    const got = await collectDecisions(w);
    await waitFor(`${expected.size} decisions`, () => got.byId.size >= expected.size);
    expect(new Set(got.byId.keys())).toEqual(new Set(expected.keys()));
    for (const [id, d] of expected) expect(got.byId.get(id), id).toEqual(d);

    run.child.kill('SIGTERM');
    expect(await run.exited()).toBe(0);
  });
});
