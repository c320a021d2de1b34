// The laws of processors/laws.spec.ts, for a run under a tool policy (docs/behaviour.md §4):
// shadow mode, escalation, per-tool entries, transient errors and a per-agent block all on.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold } from '../kernel/process.js';
import type { RunState, ToolLoopDecision } from './index.js';
import { toolLoopSpec, type RawToolEvent } from './testing/events.js';

const T0 = 1_700_000_000_000;

const p = toolLoopSpec({
  global: { enabled: true, warningThreshold: 3, criticalThreshold: 5, globalCircuitBreakerThreshold: 7, unknownToolThreshold: 3, historySize: 10 },
  agents: {},
  runTtlMs: 60_000,
  policy: {
    mode: 'shadow',
    escalation: { abortAfterBlocks: 3 },
    transientErrors: true,
    tools: { 'w*': { poll: true }, skip: { exempt: true }, exec: { warningThreshold: 2, criticalThreshold: 4 } },
    agents: { strict: { mode: 'enforce', escalation: { abortAfterBlocks: 2 } } },
  },
});

const eventArb: fc.Arbitrary<Omit<RawToolEvent, 'ts'>> = (() => {
  const tool = fc.constantFrom('read', 'exec', 'wait', 'skip');
  const args = fc.constantFrom({ p: 1 }, { p: 2 });
  const result = fc.constantFrom<unknown>('same', 'other', undefined);
  const base = fc.record({
    sessionKey: fc.constant('s'),
    runId: fc.constant('r1'),
    agentId: fc.option(fc.constant('strict'), { nil: undefined }),
    toolCallId: fc.option(fc.constantFrom('c1', 'c2', 'c3'), { nil: undefined }),
  });
  const as = (e: object) => e as Omit<RawToolEvent, 'ts'>;
  return fc.oneof(
    fc.record({ b: base, toolName: tool, args }).map(({ b, ...e }) => as({ type: 'tool_call', ...b, ...e })),
    fc.record({ b: base, toolName: tool, args, result }).map(({ b, ...e }) => as({ type: 'tool_outcome', ...b, ...e })),
    fc
      .record({ b: base, toolName: tool, args, error: fc.constantFrom('timeout', { message: 'x', status: 503 }, 'Unknown tool: read') })
      .map(({ b, ...e }) => as({ type: 'tool_outcome', ...b, ...e })),
    fc.constant(as({ type: 'compaction', sessionKey: 's', runId: 'r1' })),
  );
})();

// Gaps mostly small, and on purpose one below, at and above the run TTL (§2.7), so runs go
// idle and start fresh in the middle of a stream.
const gap = fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 0, max: 3000 }) }, { weight: 1, arbitrary: fc.constantFrom(59_999, 60_000, 60_001) });
const stream = fc.tuple(fc.array(eventArb, { minLength: 40, maxLength: 120 }), fc.array(gap, { minLength: 1, maxLength: 4 })).map(([events, gaps]) => {
  let ts = T0;
  return events.map((e, i) => ({ ...e, ts: (ts += gaps[i % gaps.length]!), eventId: `e${i}` }) as unknown as RawToolEvent);
});

const decide = (events: readonly RawToolEvent[], state: RunState = p.initialState) => fold(p, state, events);

describe('tool-loop laws under a tool policy', () => {
  it('gives the same decisions for the same input', () => {
    fc.assert(
      fc.property(stream, (events) => {
        expect(decide(events).decisions).toEqual(decide(events).decisions);
      }),
      { numRuns: 150 },
    );
  });
  it('gives the same decisions when the fold is split anywhere and the state restored', () => {
    fc.assert(
      fc.property(stream, fc.nat(), (events, at) => {
        const cut = at % (events.length + 1);
        const first = decide(events.slice(0, cut));
        expect([...first.decisions, ...decide(events.slice(cut), structuredClone(first.state)).decisions]).toEqual(decide(events).decisions);
      }),
      { numRuns: 150 },
    );
  });
  it('aborts a run at most once (per life: an idle gap starts it afresh) and answers every call exactly once', () => {
    fc.assert(
      fc.property(stream, (events) => {
        const ds = decide(events).decisions;
        const aborts = new Map<number, number>(); // life → aborts
        let life = 0;
        let state = p.initialState;
        events.forEach((e, i) => {
          if (i > 0 && e.ts - events[i - 1]!.ts > 60_000) life++;
          const r = fold(p, state, [e]);
          state = r.state;
          aborts.set(life, (aborts.get(life) ?? 0) + r.decisions.filter((d) => d.type === 'run_abort').length);
        });
        expect(Math.max(...aborts.values())).toBeLessThanOrEqual(1);
        expect(ds.filter((d) => d.type === 'tool_decision')).toHaveLength(events.filter((e) => e.type === 'tool_call').length);
      }),
      { numRuns: 150 },
    );
  });
  it('gives a redelivered call only its original tool_decision, and a redelivered event no effect', () => {
    fc.assert(
      fc.property(stream, fc.nat(), fc.nat(), (events, from, to) => {
        // The copy comes after its original, within the original's life: ids are forgotten once
        // the run has been idle for the TTL (§1 "Remembered event ids").
        const i = from % events.length;
        const src = events[i]!;
        let next = i + 1;
        while (next < events.length && events[next]!.ts - events[next - 1]!.ts <= 60_000) next++;
        const at = i + 1 + (to % (next - i));
        const delivered = [...events.slice(0, at), src, ...events.slice(at)];
        let state = p.initialState;
        const clean: ToolLoopDecision[] = [];
        let first: readonly ToolLoopDecision[] = [];
        delivered.forEach((e, i) => {
          const r = fold(p, state, [e]);
          state = r.state;
          if (i === at) {
            expect(r.decisions).toEqual(e.type === 'tool_call' ? first.slice(0, 1) : []);
            return;
          }
          if (e === src) first = r.decisions;
          clean.push(...r.decisions);
        });
        expect(clean).toEqual(decide(events).decisions);
      }),
      { numRuns: 150 },
    );
  });
});
