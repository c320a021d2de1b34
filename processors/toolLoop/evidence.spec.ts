// Evidence on every decision that acts (docs/behaviour.md §4.5): the toolCallIds behind its
// count (oldest first, the newest 20, those without an id skipped) and the ts of the first record.
// What each detector's evidence is made of: policyAudit.spec.ts, "§4.5 evidence at its boundaries".
import { describe, expect, it } from 'vitest';
import { given } from '../kernel/spec.js';
import type { RunAbort, ToolDecision, ToolLoopConfig } from './index.js';
import { runEvents, toolLoopSpec, type RawToolEvent } from './testing/events.js';

const config: ToolLoopConfig = { global: { enabled: true, historySize: 60 }, agents: {}, runTtlMs: 86_400_000 };
const p = toolLoopSpec(config);
const only = (ds: readonly unknown[]) => {
  expect(ds).toHaveLength(1);
  return ds[0] as ToolDecision;
};
const ids = (events: readonly RawToolEvent[]) => events.filter((e) => e.type === 'tool_call').map((e) => e.toolCallId as string);

describe('evidence on tool decisions', () => {
  it('keeps the newest 20 ids but dates the evidence from the first record of all', () => {
    const r = runEvents();
    const history = r.repeat(25, 'read', { p: 1 }, (i) => `v${i}`);
    given(p, history)
      .when(r.call('read', { p: 1 }))
      .then((ds) => {
        const d = only(ds);
        expect(d).toMatchObject({ decision: 'warn', count: 25 });
        expect(d.evidence).toEqual({ toolCallIds: ids(history).slice(5), since: history[0]!.ts });
      });
  });
  it('lists exactly 20 ids when 20 records make the count', () => {
    const r = runEvents();
    const history = r.repeat(20, 'read', { p: 1 }, () => 'same');
    given(p, history)
      .when(r.call('read', { p: 1 }))
      .then((ds) => {
        expect(only(ds)).toMatchObject({ decision: 'block', count: 20, evidence: { toolCallIds: ids(history), since: history[0]!.ts } });
      });
  });
  it('skips records without a toolCallId, and dates the evidence from the first record all the same', () => {
    const r = runEvents();
    const first = { ...r.call('read', { p: 1 }), toolCallId: undefined } as RawToolEvent;
    const rest = r.repeat(9, 'read', { p: 1 }, (i) => `v${i}`);
    given(p, [first, ...rest])
      .when(r.call('read', { p: 1 }))
      .then((ds) => {
        expect(only(ds).evidence).toEqual({ toolCallIds: ids(rest), since: first.ts });
      });
  });
  it("dates a record an outcome appended by the outcome's ts", () => {
    const r = runEvents();
    const orphans = Array.from({ length: 10 }, () => r.outcome('read', { p: 1 }, 'same', { toolCallId: 'late' }));
    given(p, orphans)
      .when(r.call('read', { p: 1 }))
      .then((ds) => {
        expect(only(ds)).toMatchObject({ decision: 'warn', count: 10 });
        expect(only(ds).evidence).toEqual({ toolCallIds: Array(10).fill('late'), since: orphans[0]!.ts });
      });
  });
});

describe('evidence on run_abort', () => {
  it("names the window's outcome events that carry the aborting triple (those with an id), and later blocks repeat it", () => {
    const r = runEvents();
    const outcomes = [r.outcome('read', { p: 1 }, 'same', { toolCallId: 'o1' }), r.outcome('read', { p: 1 }, 'same'), r.outcome('read', { p: 1 }, 'same', { toolCallId: 'o3' })];
    const ds = given(p).whenAll([r.compaction(), ...outcomes, r.call('read', { p: 3 })]);
    const abort = ds.find((d) => d.type === 'run_abort') as RunAbort;
    expect(abort).toMatchObject({ count: 3, evidence: { toolCallIds: ['o1', 'o3'], since: outcomes[0]!.ts } });
    expect(ds.at(-1)).toMatchObject({ decision: 'block', detector: 'compaction_loop_persisted', evidence: abort.evidence });
  });
});
