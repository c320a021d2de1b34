// Budgets (docs/behaviour.md §5) on the real broker: runs that hit each budget are decided as
// `loopguard replay` decides them, across a restart of `loopguard run` that restores them from
// the changelog mid-run; a changelog value written by the build before budgets restores, and
// its run goes on spending; the evolved schemas register over the ones shipped before them.
import { readFileSync } from 'node:fs';
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { fold } from '../processors/kernel/process.js';
import type { RunState } from '../processors/toolLoop/state.js';
import { toolLoopSpec, type RawToolEvent } from '../processors/toolLoop/testing/events.js';
import { sessionStateCodec, toolEventCodec, toolLoopStateCodec, type StoreEntry, type ValueCodec } from '../schemas/codecs.js';
import { COMPATIBILITY } from '../schemas/registry.js';
import { collectDecisions, lg, lgOk, replayOf, session, waitFor, world, writeEvents, type Run } from './helpers/harness.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);

const call = (runId: string, i: number, ts: number, toolName: string, extra: Record<string, unknown> = {}) => ({
  type: 'tool_call',
  ts,
  sessionKey: `agent:main:${runId}`,
  runId,
  toolName,
  args: { q: `${runId} ${i}` },
  toolCallId: `${runId}-${i}`,
  eventId: `${runId}-c${i}`,
  ...extra,
});

/** Runs that hit each budget, each split in two: the part before the restart and the rest. */
function budgetRuns(): { before: object[]; after: object[] } {
  const tool = Array.from({ length: 5 }, (_, i) => call('run-tool', i, T0 + i * 1000, 'web_search'));
  const calls = Array.from({ length: 10 }, (_, i) => call('run-calls', i, T0 + i * 1000, i % 2 === 0 ? 'read' : 'grep'));
  const time = [0, 60_000, 119_999, 120_000, 180_000].map((dt, i) => call('run-time', i, T0 + dt, 'read'));
  const ended = [
    { type: 'run_end', ts: T0 + 20_000, sessionKey: 'agent:main:run-calls', runId: 'run-calls', eventId: 'run-calls-end' },
    call('run-calls', 10, T0 + 21_000, 'read'),
  ];
  return { before: [...tool.slice(0, 2), ...calls.slice(0, 2), ...time.slice(0, 2)], after: [...tool.slice(2), ...calls.slice(2), ...time.slice(2), ...ended] };
}

const restoredRecords = (run: Run, topic: string) =>
  [...run.output().matchAll(new RegExp(`"topic":"${topic}","partitions":\\[[0-9,]*\\],"records":(\\d+),"ms":\\d+,"msg":"state restored from changelog"`, 'g'))].map((m) =>
    Number(m[1]),
  );

describe('budgets on the real broker', () => {
  it('blocks runs at each budget exactly as replay does, across a restart restored from the changelog', async () => {
    const w = world('budgets', {}, 3, {
      toolPolicy: { budgets: { maxCalls: 6, maxSeconds: 120 }, tools: { web_search: { maxCalls: 3 } }, escalation: { abortAfterBlocks: 3 } },
    });
    const { before, after } = budgetRuns();
    const all = writeEvents(`${w.name}-all`, [...before, ...after]);
    const expected = await replayOf(w, all);
    const decided = (key: string) => [...expected.values()].filter((d) => d.key === key).map((d) => [d.type, d.decision ?? null, d.detector, d.count]);
    expect(decided('run-tool')).toEqual([
      ['tool_decision', 'allow', null, null],
      ['tool_decision', 'allow', null, null],
      ['tool_decision', 'allow', null, null],
      ['tool_decision', 'block', 'tool_call_budget', 3],
      ['tool_decision', 'block', 'tool_call_budget', 3],
    ]);
    expect(decided('run-calls')).toEqual([
      ...Array.from({ length: 6 }, () => ['tool_decision', 'allow', null, null]),
      ['tool_decision', 'block', 'run_call_budget', 6],
      ['tool_decision', 'block', 'run_call_budget', 6],
      ['tool_decision', 'block', 'run_call_budget', 6],
      ['run_abort', null, 'block_escalation', 3],
      ['tool_decision', 'block', 'block_escalation', 3],
      // After run_end the run starts afresh.
      ['tool_decision', 'allow', null, null],
    ]);
    expect(decided('run-time')).toEqual([
      ['tool_decision', 'allow', null, null],
      ['tool_decision', 'allow', null, null],
      ['tool_decision', 'allow', null, null],
      ['tool_decision', 'block', 'run_time_budget', 120],
      ['tool_decision', 'block', 'run_time_budget', 180],
    ]);

    await lgOk(['topics', 'create', '--config', w.configFile]);
    const got = await collectDecisions(w);
    await lgOk(['produce', '--config', w.configFile, writeEvents(`${w.name}-before`, before)]);
    const first = lg(['run', '--config', w.configFile]);
    await waitFor(`${before.length} decisions`, () => got.byId.size >= before.length);
    first.child.kill('SIGTERM');
    expect(await first.exited()).toBe(0);

    await lgOk(['produce', '--config', w.configFile, writeEvents(`${w.name}-after`, after)]);
    const second = lg(['run', '--config', w.configFile]);
    await waitFor(`${expected.size} decisions`, () => got.byId.size >= expected.size);
    expect(restoredRecords(second, w.config.topics.toolEvents).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(new Set(got.byId.keys())).toEqual(new Set(expected.keys()));
    for (const [id, d] of expected) expect(got.byId.get(id), id).toEqual(d);
    second.child.kill('SIGTERM');
    expect(await second.exited()).toBe(0);
  });

  it('restores a changelog value written by the build before budgets, and its run goes on spending', async () => {
    // The fixture: a run's state as that build wrote it after folding the fixture's events.
    const fixture = JSON.parse(readFileSync('schemas/fixtures/tool-loop-state.v2.json', 'utf8')) as { schema: string; base64: string; events: RawToolEvent[] };
    const toolLoopDetection = { tools: { loopDetection: { enabled: true, warningThreshold: 2, criticalThreshold: 3 } } };
    const policy = { escalation: { abortAfterBlocks: 5 }, agents: { researcher: { budgets: { maxCalls: 2 } } } };
    const w = world('budgets-old-changelog', toolLoopDetection, 1, { toolPolicy: policy });
    await lgOk(['topics', 'create', '--config', w.configFile]);
    const { kafka, catalog } = session(w);
    const changelog = `${w.config.topics.changelogPrefix}tool-loop-runs-changelog`;
    const old = JSON.parse(readFileSync(fixture.schema, 'utf8')) as avro.Schema;
    const oldCodec = { ...toolLoopStateCodec, schema: old, type: avro.Type.forSchema(old) } as ValueCodec<StoreEntry>;
    const id = await catalog.register(changelog, oldCodec, COMPATIBILITY.BACKWARD);
    const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), Buffer.from(fixture.base64, 'base64')]);
    framed.writeUInt32BE(id, 1);
    await (await kafka.producer()).send([{ topic: changelog, partition: 0, key: 'run-fixture', value: framed }]);

    // The input the old build folded (offsets 0-8, skipped on restore), then new calls.
    const more = [1, 2, 3].map((i) => ({
      type: 'tool_call',
      ts: 1_700_000_100_000 + i,
      sessionKey: 's',
      runId: 'run-fixture',
      toolName: 'read',
      args: { i },
      toolCallId: `n${i}`,
    }));
    await lgOk(['produce', '--config', w.configFile, writeEvents(w.name, [...fixture.events, ...more])]);
    const got = await collectDecisions(w);
    const run = lg(['run', '--config', w.configFile]);
    await waitFor('3 decisions', () => got.byId.size >= 3);
    const restored = toolLoopStateCodec.fromAvro(
      toolLoopStateCodec.type.fromBuffer(Buffer.from(fixture.base64, 'base64'), toolLoopStateCodec.type.createResolver(oldCodec.type)),
    ) as StoreEntry<RunState>;
    const p = toolLoopSpec({ global: toolLoopDetection.tools.loopDetection, agents: {}, runTtlMs: 86_400_000, policy });
    const want = fold(p, restored.state, more).decisions.map((d) => [d.toolName, d.detector, d.count]);
    expect(want).toEqual([
      ['read', null, null],
      ['read', null, null],
      ['read', 'run_call_budget', 2],
    ]);
    expect([...got.byId.values()].map((d) => [d.toolName, d.detector, d.count])).toEqual(want);
    expect(restoredRecords(run, w.config.topics.toolEvents)).toEqual([1]);
    run.child.kill('SIGTERM');
    expect(await run.exited()).toBe(0);
  });

  it('registers the evolved schemas over the ones shipped before them', async () => {
    const w = world('budgets-schemas');
    const { catalog } = session(w);
    const shipped = <T>(codec: ValueCodec<T>, file: string): ValueCodec<T> => {
      const schema = JSON.parse(readFileSync(`schemas/history/${file}.avsc`, 'utf8')) as avro.Schema;
      return { ...codec, schema, type: avro.Type.forSchema(schema) } as ValueCodec<T>;
    };
    const changelog = `${w.config.topics.changelogPrefix}tool-loop-runs-changelog`;
    for (const v of ['v1', 'v2', 'v3', 'v4']) await catalog.register(changelog, shipped(toolLoopStateCodec, `tool-loop-state.${v}`), COMPATIBILITY.BACKWARD);
    await expect(catalog.register(changelog, toolLoopStateCodec, COMPATIBILITY.BACKWARD)).resolves.toBeGreaterThan(0);
    const sessions = `${w.config.topics.changelogPrefix}tool-loop-sessions-changelog`;
    await catalog.register(sessions, shipped(sessionStateCodec, 'tool-loop-session-state.v1'), COMPATIBILITY.BACKWARD);
    await expect(catalog.register(sessions, sessionStateCodec, COMPATIBILITY.BACKWARD)).resolves.toBeGreaterThan(0);
    const events = w.config.topics.toolEvents;
    for (const v of ['v1', 'v2', 'v3', 'v4']) await catalog.register(events, shipped(toolEventCodec, `tool-event.${v}`), COMPATIBILITY.FULL_TRANSITIVE);
    await catalog.register(events, toolEventCodec, COMPATIBILITY.FULL_TRANSITIVE);
    // A number error crosses the registry and comes back a number.
    const outcome = { type: 'tool_outcome', ts: 1, runId: 'r', toolName: 'f', args: {}, error: 503 };
    expect(await catalog.decode(catalog.encode(events, toolEventCodec, outcome), toolEventCodec)).toEqual(outcome);
  });
});
