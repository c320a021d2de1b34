// The openclaw profile and tool events keyed by session in the changelog (docs/behaviour.md §6):
// a restored state goes on deciding exactly as the state it was written from, and a value
// written before the profile still reads.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type avro from 'avsc';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold } from '../processors/kernel/process.js';
import type { RunState } from '../processors/toolLoop/state.js';
import type { SessionState } from '../processors/toolLoop/session.js';
import { buildTopology } from '../topology/build.js';
import { configFrom } from '../topology/config.js';
import { sessionStateCodec, toolLoopStateCodec, type StoreEntry, type ValueCodec } from './codecs.js';

const avsc = createRequire(import.meta.url)('avsc') as typeof avro;
const roundTrip = <S>(codec: ValueCodec<StoreEntry<S>>, e: StoreEntry<S>): StoreEntry<S> => codec.fromAvro(codec.type.fromBuffer(codec.type.toBuffer(codec.toAvro(e))));

const loopDetection = { enabled: true, profile: 'openclaw', warningThreshold: 2, criticalThreshold: 3, globalCircuitBreakerThreshold: 5, historySize: 6 };
const event = fc.record({
  type: fc.constantFrom('tool_call', 'tool_call', 'tool_outcome', 'compaction', 'run_end'),
  runId: fc.constantFrom('r1', 'r2'),
  toolName: fc.constantFrom('read', 'Bash', 'write'),
  args: fc.constantFrom({ a: 1 }, { a: 2 }),
  result: fc.constantFrom<unknown>(
    'x',
    { details: { changed: false } },
    { details: { status: 'failed', exitCode: 1, aggregated: 'down at 10:00:01' } },
    { details: { status: 'blocked', deniedReason: 'tool-loop' } },
  ),
  turnId: fc.option(fc.constantFrom('t1', 't2'), { nil: undefined }),
  eventId: fc.option(fc.constantFrom('e1', 'e2', 'e3'), { nil: undefined }),
  toolCallId: fc.option(fc.constantFrom('c1', 'c2', 'c3'), { nil: undefined }),
});

describe.each([
  ['keyed by session', 'session', sessionStateCodec],
  ['keyed by run', 'run', toolLoopStateCodec],
] as const)('the openclaw profile in the changelog, %s', (_name, keyBy, codec) => {
  const [tool] = buildTopology(configFrom({ tools: { loopDetection }, loopguard: { keyToolEventsBy: keyBy } })).nodes;
  it('restores a state that decides on exactly as before (split fold through Avro)', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 60 }), fc.nat(), (raw, at) => {
        const events = raw
          .map((e, i) => tool!.parse({ ...e, ts: 1_000 + i * 1000, sessionKey: 's' }))
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
        // Every record comes back with its profile facts, and every run with its profile record.
        for (const [k, s] of head.states) {
          const [was, is] = [s as { history: unknown; profile?: unknown }, restored.get(k) as { history: unknown; profile?: unknown }];
          expect(is.history).toEqual(was.history);
          expect(is.profile).toEqual(was.profile);
        }
        expect([...head.decisions, ...byKey(events.slice(cut), restored).decisions]).toEqual(byKey(events).decisions);
      }),
    );
  });
});

describe('a tool-loop value written before the profile', () => {
  it('restores as a run of §2 with no profile state, its records plain', () => {
    const v3 = avsc.Type.forSchema(JSON.parse(readFileSync('schemas/history/tool-loop-state.v3.avsc', 'utf8')) as avro.Schema);
    const old = {
      offset: 7,
      state: {
        lastTs: 9000,
        agentId: null,
        history: [{ toolName: 'read', argsHash: 'read:h', toolCallId: 'c1', resultHash: 'r1', unknownToolName: null, ts: 5 }],
        guard: null,
        aborted: null,
        blocked: null,
        warnings: [],
        eventIds: [
          {
            eventType: 'tool_call',
            eventId: 'e1',
            verdict: { decision: 'allow', detector: null, level: null, count: null, notify: null, pairedToolName: null, shadow: null, evidence: null },
          },
        ],
        spent: null,
      },
    };
    const entry = toolLoopStateCodec.fromAvro(toolLoopStateCodec.type.fromBuffer(v3.toBuffer(old), toolLoopStateCodec.type.createResolver(v3)));
    const s = entry.state as RunState;
    expect(s.profile).toBeNull();
    expect(Object.keys(s.history[0]!)).toEqual(['toolName', 'argsHash', 'argsKey', 'toolCallId', 'resultHash', 'unknownToolName', 'ts']);
  });

  it('writes a session as its runs, its shared records and its event ids', () => {
    const [tool] = buildTopology(configFrom({ tools: { loopDetection }, loopguard: { keyToolEventsBy: 'session' } })).nodes;
    const events = [
      { type: 'tool_call', ts: 1, sessionKey: 's', runId: 'r1', toolName: 'read', args: {}, eventId: 'x' },
      { type: 'tool_call', ts: 2, sessionKey: 's', runId: 'r2', toolName: 'read', args: {}, eventId: 'x', turnId: 't' },
    ].map((e) => {
      const p = tool!.parse(e);
      if (!p.ok) throw new Error(p.reason);
      return p.value;
    });
    const state = fold(tool!.process, tool!.process.initialState, events).state as SessionState;
    const avroValue = sessionStateCodec.toAvro({ offset: 1, state }) as {
      state: { runs: unknown[]; records: Array<{ run: string; turnId: string | null }>; eventIds: Array<{ eventId: string }> };
    };
    expect(avroValue.state.records.map((h) => [h.run, h.turnId])).toEqual([
      ['r1', null],
      ['r2', 't'],
    ]);
    expect(avroValue.state.eventIds.map((e) => e.eventId)).toEqual(['r1\u0000x', 'r2\u0000x']);
    expect(roundTrip(sessionStateCodec, { offset: 1, state }).state.history).toEqual(state.history);
  });
});
