// The early preset in the changelog (docs/behaviour.md §7.4): a restored state decides on exactly
// as the state it was written from, every record with its preset's facts; values written before
// the preset still read; and runs of other rules write none.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type avro from 'avsc';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold } from '../processors/kernel/process.js';
import type { RunState } from '../processors/toolLoop/state.js';
import { buildTopology } from '../topology/build.js';
import { configFrom } from '../topology/config.js';
import { sessionStateCodec, toolLoopStateCodec, type StoreEntry, type ValueCodec } from './codecs.js';

const avsc = createRequire(import.meta.url)('avsc') as typeof avro;
const roundTrip = <S>(codec: ValueCodec<StoreEntry<S>>, e: StoreEntry<S>): StoreEntry<S> => codec.fromAvro(codec.type.fromBuffer(codec.type.toBuffer(codec.toAvro(e))));

const event = fc.record({
  type: fc.constantFrom('tool_call', 'tool_call', 'tool_outcome', 'tool_outcome', 'compaction', 'run_end'),
  runId: fc.constantFrom('r1', 'r2'),
  toolName: fc.constantFrom('read', 'process', 'gone'),
  args: fc.constantFrom<unknown>({ p: 'a' }, { p: 'A ' }, { action: 'poll', id: 1 }),
  result: fc.constantFrom<unknown>('x', 'y', { checkedAt: 1, ok: true }),
  error: fc.constantFrom<unknown>(undefined, undefined, '503 Service Unavailable', 'Unknown tool: gone'),
  turnId: fc.option(fc.constantFrom('t1', 't2'), { nil: undefined }),
  eventId: fc.option(fc.constantFrom('e1', 'e2', 'e3'), { nil: undefined }),
  toolCallId: fc.option(fc.constantFrom('c1', 'c2', 'c3'), { nil: undefined }),
  gap: fc.constantFrom(500, 2_000, 30_000),
});

describe.each([
  ['keyed by run', 'run', toolLoopStateCodec],
  ['keyed by session', 'session', sessionStateCodec],
] as const)('the early preset in the changelog, %s', (_name, keyBy, codec) => {
  const [tool] = buildTopology(configFrom({ tools: { loopDetection: { enabled: true, profile: 'early', historySize: 6 } }, loopguard: { keyToolEventsBy: keyBy } })).nodes;
  it('restores a state that decides on exactly as before, its records as they were folded (split fold through Avro)', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 60 }), fc.nat(), (raw, at) => {
        let ts = 1_000;
        const events = raw
          .map(({ gap, error, result, ...e }) =>
            tool!.parse({ ...e, ...(e.type === 'tool_outcome' ? (error === undefined ? { result } : { error }) : {}), ts: (ts += gap), sessionKey: 's' }),
          )
          .map((p) => (p.ok ? p.value : null))
          .filter((e) => e !== null);
        const p = tool!.process;
        const byKey = (list: readonly unknown[], states = new Map<string, unknown>()) => {
          const decisions: unknown[] = [];
          for (const e of list) {
            const k = p.keyOf(e);
            const r = fold(p, states.get(k) ?? p.initialState, [e]);
            states.set(k, r.state);
            decisions.push(...r.decisions);
          }
          return { decisions, states };
        };
        const cut = at % (events.length + 1);
        const head = byKey(events.slice(0, cut));
        const restored = new Map([...head.states].map(([k, s]) => [k, roundTrip(codec as ValueCodec<StoreEntry<unknown>>, { offset: cut, state: s }).state]));
        for (const [k, s] of head.states) expect(restored.get(k)).toEqual(s);
        expect([...head.decisions, ...byKey(events.slice(cut), restored).decisions]).toEqual(byKey(events).decisions);
      }),
    );
  });
});

describe('early records in the changelog', () => {
  it('writes the preset’s facts only for runs that have its records', () => {
    const [early] = buildTopology(configFrom({ tools: { loopDetection: { enabled: true, profile: 'early' } } })).nodes;
    const [plain] = buildTopology(configFrom({ tools: { loopDetection: { enabled: true } } })).nodes;
    const call = { type: 'tool_call', ts: 1, runId: 'r', toolName: 'read', args: { p: 1 }, turnId: 't' };
    const stateOf = (node: typeof early) => fold(node!.process, node!.process.initialState, [(node!.parse(call) as { value: unknown }).value]).state as RunState;
    const written = (s: RunState) => toolLoopStateCodec.toAvro({ offset: 0, state: s }) as { state: { early: unknown } };
    expect(written(stateOf(early)).state.early).toEqual({ records: [{ at: 0, outcomeTs: null, turnId: 't', poll: false, duplicate: false, transient: false, stale: false }] });
    expect(written(stateOf(plain)).state.early).toBeNull();
  });

  it('reads a value written before the preset (v4) as a run of plain records', () => {
    const v4 = avsc.Type.forSchema(JSON.parse(readFileSync('schemas/history/tool-loop-state.v4.avsc', 'utf8')) as avro.Schema);
    const old = {
      offset: 3,
      state: {
        lastTs: 9000,
        agentId: null,
        history: [{ toolName: 'read', argsHash: 'read:h', toolCallId: 'c1', resultHash: 'r1', unknownToolName: null, ts: 5 }],
        guard: null,
        aborted: null,
        blocked: null,
        warnings: [],
        eventIds: [],
        spent: null,
        profile: null,
      },
    };
    const entry = toolLoopStateCodec.fromAvro(toolLoopStateCodec.type.fromBuffer(v4.toBuffer(old), toolLoopStateCodec.type.createResolver(v4)));
    const s = entry.state as RunState;
    expect(Object.keys(s.history[0]!)).toEqual(['toolName', 'argsHash', 'argsKey', 'toolCallId', 'resultHash', 'unknownToolName', 'ts']);
  });
});
