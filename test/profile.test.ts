// The openclaw profile with tool events keyed by session (docs/behaviour.md §6) on the real broker:
// `loopguard run` decides interleaved runs of one session, a turn and a host's veto as replay
// does, across a restart restored from the session changelog; an SDK runner keyed by session gets
// its decisions back, a turn of its whole; and a start keyed by run over that changelog is
// refused, naming the key.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LoopguardRunner } from '../sdk/runner.js';
import { clientOptions, collectDecisions, lg, lgOk, replayOf, testKafkaClient, waitFor, world, writeEvents } from './helpers/harness.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const same = { content: [{ type: 'text', text: 'same' }] };

/** Two runs of session `s` taking turns at one call each, then r1 asks for a turn of three. */
function sessionEvents(): { before: object[]; after: object[] } {
  let ts = T0;
  let n = 0;
  const ev = (type: string, runId: string, extra: object) => ({ type, ts: (ts += 1000), sessionKey: 's', runId, eventId: `e${++n}`, ...extra });
  const pair = (runId: string, path: string) => {
    const id = `${runId}-${n}`;
    return [
      ev('tool_call', runId, { toolName: 'read', args: { path }, toolCallId: id }),
      ev('tool_outcome', runId, { toolName: 'read', args: { path }, toolCallId: id, result: same }),
    ];
  };
  const before = Array.from({ length: 12 }, (_, i) => pair(i % 2 ? 'r2' : 'r1', i % 2 ? 'b' : 'a')).flat();
  // The host vetoed a call of r1 it never asked about: a veto record of r1's.
  before.push(ev('tool_outcome', 'r1', { toolName: 'read', args: { path: 'a' }, toolCallId: 'host-veto', result: { details: { status: 'blocked', deniedReason: 'tool-loop' } } }));
  const after = [
    ...Array.from({ length: 14 }, (_, i) => pair(i % 2 ? 'r2' : 'r1', i % 2 ? 'b' : 'a')).flat(),
    ...['a', 'a', 'c'].map((path, i) => ev('tool_call', 'r1', { toolName: 'Read', args: { path }, toolCallId: `turn-${i}`, turnId: 't1' })),
  ];
  return { before, after };
}

describe('the openclaw profile keyed by session, on the real broker', () => {
  it('decides as replay does across a restart, answers an SDK runner keyed by session, and refuses a start keyed by run', async () => {
    const w = world('profile', { tools: { loopDetection: { enabled: true, profile: 'openclaw' } } }, 3, { keyToolEventsBy: 'session' });
    const { before, after } = sessionEvents();
    const expected = await replayOf(w, writeEvents(`${w.name}-all`, [...before, ...after]));
    const decided = (key: string) => [...expected.values()].filter((d) => d.key === key && d.decision !== 'allow').map((d) => `${d.decision} ${d.detector} ${d.count}`);
    // Each run counts its own calls of the session's records; r1 the host's veto too, and its turn's first call.
    expect(decided('r1')).toEqual([10, 11, 12, 13, 14, 15].map((n) => `warn generic_repeat ${n}`));
    expect(decided('r2')).toEqual([10, 11, 12].map((n) => `warn generic_repeat ${n}`));

    await lgOk(['topics', 'create', '--config', w.configFile]);
    const got = await collectDecisions(w);
    await lgOk(['produce', '--config', w.configFile, writeEvents(`${w.name}-before`, before)]);
    const first = lg(['run', '--config', w.configFile]);
    await waitFor('the first decisions', () => got.byId.size >= 12);
    first.child.kill('SIGTERM');
    expect(await first.exited()).toBe(0);
    await lgOk(['produce', '--config', w.configFile, writeEvents(`${w.name}-after`, after)]);
    const second = lg(['run', '--config', w.configFile]);
    await waitFor(`${expected.size} decisions`, () => got.byId.size >= expected.size);
    expect(second.output()).toMatch(/"records":[1-9]\d*,"ms":\d+,"msg":"state restored from changelog"/);
    for (const [id, d] of expected) expect(got.byId.get(id), id).toEqual(d);

    // A runner keyed by session: its events reach the session's partition, its decisions come back by run.
    const runner = await LoopguardRunner.connect({ ...clientOptions(w, 'closed'), kafkaClient: testKafkaClient(), keyBy: 'session', profile: 'openclaw' });
    const verdicts: string[] = [];
    for (let i = 0; i < 11; i++) {
      const v = await runner.beforeToolCall({ sessionKey: 's', runId: 'r3', toolName: 'exec', args: { command: `deploy ${i}` } });
      verdicts.push(v.decision);
      const output = `refused (pid ${100 + i})`;
      await runner.afterToolCall(
        { sessionKey: 's', runId: 'r3', toolName: 'exec', args: { command: `deploy ${i}` }, toolCallId: v.toolCallId },
        { result: { content: [{ type: 'text', text: output }], details: { status: 'failed', exitCode: 1, aggregated: output } } },
      );
    }
    // A turn through beforeToolCalls, after 20 identical outcomes of one read: the turn asks for
    // another read, that read again, and a third; the second is a critical loop, so none runs.
    const r4 = { sessionKey: 's', runId: 'r4', toolName: 'read' };
    for (let i = 0; i < 20; i++) {
      const v = await runner.beforeToolCall({ ...r4, args: { path: 'loop' } });
      await runner.afterToolCall({ ...r4, args: { path: 'loop' }, toolCallId: v.toolCallId }, { result: same });
    }
    const turn = await runner.beforeToolCalls(['other', 'loop', 'third'].map((path, i) => ({ ...r4, args: { path }, toolCallId: `r4-${i}` })));
    await runner.close();
    // Eleven different commands, one failure: allowed, as OpenClaw allows them until the 21st.
    expect(verdicts).toEqual(Array.from({ length: 11 }, () => 'allow'));
    expect(turn.map((v) => v.decision)).toEqual(['block', 'block', 'block']);
    expect(turn[1]).toMatchObject({ detector: 'generic_repeat', count: 20, turnBlockedBy: null, message: expect.stringContaining('Blocked') });
    // The call before it was allowed when it was decided, the call after it answered as not run by
    // the processor (the three went out as one turn, in order): neither runs.
    for (const v of [turn[0]!, turn[2]!]) expect(v).toMatchObject({ detector: 'generic_repeat', turnBlockedBy: 'r4-1', message: expect.stringContaining('Not run') });
    second.child.kill('SIGTERM');
    expect(await second.exited()).toBe(0);

    const byRun = JSON.parse(readFileSync(w.configFile, 'utf8')) as { loopguard: Record<string, unknown> };
    byRun.loopguard.keyToolEventsBy = 'run';
    const byRunFile = `${w.configFile.slice(0, -5)}-by-run.json`;
    writeFileSync(byRunFile, JSON.stringify(byRun));
    await lgOk(['topics', 'create', '--config', byRunFile]);
    const refused = lg(['run', '--config', byRunFile]);
    expect(await refused.exited()).not.toBe(0);
    expect(refused.output()).toMatch(/loopguard: config loopguard\.keyToolEventsBy is "run", but \S+tool-loop-sessions-changelog holds tool-loop state kept by session/);
  });
});
