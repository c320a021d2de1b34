// The laws restarts and redeliveries rely on, as properties over generated streams.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { botLoopProcess, type BotMessage } from './botLoop/index.js';
import { fold, type Process } from './kernel/process.js';
import { toolLoopSessionSpec, toolLoopSpec as toolLoopProcess, type RawToolEvent as ToolEvent } from './toolLoop/testing/events.js';

const T0 = 1_700_000_000_000;

// Small alphabets so loops, ping-pongs, unknown tools and compactions actually happen.
const toolEventArb = (withRunEnd: boolean): fc.Arbitrary<Omit<ToolEvent, 'ts'>> => {
  const tool = fc.constantFrom('read', 'exec', 'process', 'browse');
  const args = fc.constantFrom({ p: 1 }, { p: 2 }, { action: 'poll', id: 1 });
  const result = fc.constantFrom<unknown>('same', 'other', { details: { status: 'running' } }, undefined);
  const base = { sessionKey: 's', runId: 'r1' };
  const kinds: fc.Arbitrary<Omit<ToolEvent, 'ts'>>[] = [
    fc.record({ toolName: tool, args }).map((e) => ({ type: 'tool_call', ...base, ...e }) as unknown as Omit<ToolEvent, 'ts'>),
    fc.record({ toolName: tool, args, result }).map((e) => ({ type: 'tool_outcome', ...base, ...e }) as unknown as Omit<ToolEvent, 'ts'>),
    fc.record({ toolName: tool, args }).map((e) => ({ type: 'tool_outcome', ...base, ...e, error: `Unknown tool: ${e.toolName}` }) as unknown as Omit<ToolEvent, 'ts'>),
    fc.constant({ type: 'compaction', ...base } as unknown as Omit<ToolEvent, 'ts'>),
  ];
  if (withRunEnd) kinds.push(fc.constant({ type: 'run_end', ...base } as unknown as Omit<ToolEvent, 'ts'>));
  return fc.oneof(...kinds);
};

// The openclaw profile keyed by session (§6): two runs of one session, calls alone and in turns,
// exec failures and the host's own vetoes.
const sessionEventArb: fc.Arbitrary<Omit<ToolEvent, 'ts'>> = fc
  .record({
    base: fc.record({ sessionKey: fc.constant('s'), runId: fc.constantFrom('r1', 'r2') }),
    tool: fc.constantFrom('read', 'Bash', 'exec', 'write'),
    args: fc.constantFrom({ p: 1 }, { p: 2 }, { action: 'poll', id: 1 }),
    turnId: fc.constantFrom(undefined, undefined, 't1', 't2'),
    kind: fc.constantFrom('call', 'call', 'outcome', 'failure', 'veto', 'compaction', 'run_end'),
    result: fc.constantFrom<unknown>('same', 'other', { details: { changed: false } }),
    id: fc.constantFrom('c1', 'c2', 'c3', undefined),
  })
  .map(({ base, tool, args, turnId, kind, result, id }) => {
    const toolCallId = id === undefined ? {} : { toolCallId: id };
    switch (kind) {
      case 'call':
        return { type: 'tool_call', ...base, toolName: tool, args, ...toolCallId, ...(turnId ? { turnId } : {}) };
      case 'outcome':
        return { type: 'tool_outcome', ...base, toolName: tool, args, result, ...toolCallId };
      case 'failure':
        return {
          type: 'tool_outcome',
          ...base,
          toolName: tool,
          args,
          ...toolCallId,
          result: { details: { status: 'failed', exitCode: 1, aggregated: `down (pid ${result === 'same' ? 1 : 2})` } },
        };
      case 'veto':
        return { type: 'tool_outcome', ...base, toolName: tool, args, ...toolCallId, result: { details: { status: 'blocked', deniedReason: 'tool-loop' } } };
      default:
        return { type: kind, ...base };
    }
  }) as unknown as fc.Arbitrary<Omit<ToolEvent, 'ts'>>;

// The early preset (§7): calls alone and in turns, repeated and changing outcomes, volatile parts,
// transient failures, missing tools, a loopKey on the event, polls; gaps around its 30 s wait.
const earlyEventArb: fc.Arbitrary<Omit<ToolEvent, 'ts'>> = fc
  .record({
    tool: fc.constantFrom('read', 'search', 'process'),
    args: fc.constantFrom<unknown>({ p: 'a' }, { p: './A ' }, { p: 'b', n: 1 }, { action: 'poll', id: 1 }),
    turnId: fc.constantFrom(undefined, undefined, 't1', 't2'),
    kind: fc.constantFrom('call', 'call', 'outcome', 'outcome', 'transient', 'unknown', 'compaction', 'run_end'),
    result: fc.constantFrom<unknown>('same', 'other', { state: 'ok', checkedAt: 1 }, { state: 'ok', checkedAt: 2 }),
    id: fc.constantFrom('c1', 'c2', 'c3', undefined),
    loopKey: fc.constantFrom<unknown>(undefined, undefined, ['p'], false),
  })
  .map(({ tool, args, turnId, kind, result, id, loopKey }) => {
    const base = { sessionKey: 's', runId: 'r1', toolName: tool, args, ...(id === undefined ? {} : { toolCallId: id }), ...(loopKey === undefined ? {} : { loopKey }) };
    switch (kind) {
      case 'call':
        return { type: 'tool_call', ...base, ...(turnId ? { turnId } : {}) };
      case 'outcome':
        return { type: 'tool_outcome', ...base, result };
      case 'transient':
        return { type: 'tool_outcome', ...base, error: '503 Service Unavailable' };
      case 'unknown':
        return { type: 'tool_outcome', ...base, error: `Unknown tool: ${tool}` };
      default:
        return { type: kind, sessionKey: 's', runId: 'r1' };
    }
  }) as unknown as fc.Arbitrary<Omit<ToolEvent, 'ts'>>;

const stamp = <E>(events: Omit<E, 'ts'>[], gaps: number[]): E[] => {
  let ts = T0;
  return events.map((e, i) => ({ ...e, ts: (ts += gaps[i % gaps.length]!), eventId: `e${i}` }) as E);
};

const TTL_MS = 60_000;

const BOT = { windowMs: 10_000, cooldownMs: 5_000, conversationMs: 600_000 };

/** Gaps between events: mostly small steps, and on purpose one below, at and above each edge. */
const gapsAt = (small: fc.Arbitrary<number>, edges: readonly number[]) =>
  fc.array(fc.oneof({ weight: 3, arbitrary: small }, { weight: 2, arbitrary: fc.constantFrom(...edges.flatMap((e) => [e - 1, e, e + 1])) }), {
    minLength: 1,
    maxLength: 5,
  });

// Gaps at the run TTL (§2.7) make runs go idle and start fresh in the middle of a stream.
const toolStream = (withRunEnd = true) =>
  fc
    .tuple(fc.array(toolEventArb(withRunEnd), { minLength: 1, maxLength: 120 }), gapsAt(fc.integer({ min: 0, max: 5000 }), [TTL_MS]))
    .map(([events, gaps]) => stamp<ToolEvent>(events, gaps));

const sessionStream = () =>
  fc
    .tuple(fc.array(sessionEventArb, { minLength: 1, maxLength: 120 }), gapsAt(fc.integer({ min: 0, max: 5000 }), [TTL_MS]))
    .map(([events, gaps]) => stamp<ToolEvent>(events, gaps));

const earlyStream = () =>
  fc
    .tuple(fc.array(earlyEventArb, { minLength: 1, maxLength: 120 }), gapsAt(fc.integer({ min: 0, max: 12_000 }), [30_000, TTL_MS]))
    .map(([events, gaps]) => stamp<ToolEvent>(events, gaps));

const botStream = fc
  .tuple(
    fc.array(fc.record({ senderId: fc.constantFrom('A', 'B', 'C'), receiverId: fc.constantFrom('A', 'B', 'C'), conversationId: fc.constantFrom('c1', 'c2') }), {
      minLength: 1,
      maxLength: 150,
    }),
    // Window, cooldown and conversation-window edges (§3.3–§3.4), either way in time.
    gapsAt(fc.integer({ min: -3000, max: 6000 }), [BOT.windowMs, BOT.cooldownMs, -BOT.windowMs, BOT.conversationMs]),
  )
  .map(([events, gaps]) =>
    stamp<BotMessage>(
      events.map((e) => ({ type: 'bot_message', channel: 'slack', accountId: 'a', ...e }) as Omit<BotMessage, 'ts'>),
      gaps,
    ),
  );

const tool = toolLoopProcess({
  global: { enabled: true, warningThreshold: 3, criticalThreshold: 5, globalCircuitBreakerThreshold: 7, unknownToolThreshold: 3, historySize: 10 },
  agents: {},
  runTtlMs: TTL_MS,
});
const sessions = toolLoopSessionSpec({
  global: { enabled: true, profile: 'openclaw', warningThreshold: 3, criticalThreshold: 5, globalCircuitBreakerThreshold: 7, unknownToolThreshold: 3, historySize: 10 },
  agents: {},
  runTtlMs: TTL_MS,
  keyBy: 'session',
});
const early = toolLoopProcess({
  global: { enabled: true, profile: 'early', historySize: 10 },
  agents: {},
  runTtlMs: TTL_MS,
  policy: { escalation: { abortAfterBlocks: 4 }, budgets: { maxCalls: 40 }, tools: { search: { loopKey: ['p'] } } },
});
const bot = botLoopProcess({
  defaults: { maxEventsPerWindow: 4, windowSeconds: BOT.windowMs / 1000, cooldownSeconds: BOT.cooldownMs / 1000, maxConversationBotEvents: 6 },
  channels: {},
});

/** Folds per key, as the partition task does. */
function run<S, E, V, D>(p: Process<S, E, V, D>, events: readonly E[], states = new Map<string, S>()): { decisions: D[]; states: Map<string, S> } {
  const decisions: D[] = [];
  for (const e of events) {
    const k = p.keyOf(e);
    const r = fold(p, states.get(k) ?? p.initialState, [e]);
    states.set(k, r.state);
    decisions.push(...r.decisions);
  }
  return { decisions, states };
}

/** What a restore gives back: a deep copy sharing nothing (the Avro round trip is in schemas/codecs.spec.ts). */
const restore = <S>(states: Map<string, S>) => new Map([...states].map(([k, s]) => [k, structuredClone(s)]));

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

const cases = [
  ['tool-loop', tool, toolStream()],
  ['tool-loop keyed by session, openclaw profile', sessions, sessionStream()],
  ['tool-loop, early preset', early, earlyStream()],
  ['bot-loop', bot, botStream],
] as const;

describe.each(cases)('%s laws', (_name, proc, stream) => {
  const p = proc as unknown as Process<unknown, { eventId?: string }, unknown, unknown>;
  const arb = stream as fc.Arbitrary<{ eventId?: string }[]>;
  it('gives the same decisions for the same input', () => {
    fc.assert(
      fc.property(arb, (events) => {
        expect(run(p, events).decisions).toEqual(run(p, events).decisions);
      }),
      { numRuns: 150 },
    );
  });
  it('gives the same decisions when the fold is split anywhere and the state restored', () => {
    fc.assert(
      fc.property(arb, fc.nat(), (events, at) => {
        const cut = at % (events.length + 1);
        const whole = run(p, events).decisions;
        const first = run(p, events.slice(0, cut));
        const second = run(p, events.slice(cut), restore(first.states));
        expect([...first.decisions, ...second.decisions]).toEqual(whole);
      }),
      { numRuns: 150 },
    );
  });
  // Specs run as ES modules (strict mode): writing to a frozen event or state throws, so a fold
  // that mutates its inputs fails here; and it must decide exactly as on unfrozen inputs.
  it('never throws or mutates on frozen events and states, and decides as on unfrozen ones', () => {
    fc.assert(
      fc.property(arb, (events) => {
        const frozen = deepFreeze(structuredClone(events));
        const states = new Map<string, unknown>();
        const decisions: unknown[] = [];
        for (const e of frozen) {
          const k = p.keyOf(e);
          const r = fold(p, states.get(k) ?? p.initialState, [e]);
          states.set(k, deepFreeze(r.state));
          decisions.push(...r.decisions);
        }
        expect(decisions).toEqual(run(p, events).decisions);
      }),
      { numRuns: 100 },
    );
  });
});

describe('redelivery laws', () => {
  // Each duplicate goes somewhere after its original, within the original's life: tool event ids
  // are forgotten once a run has been idle for the TTL (§1 "Remembered event ids"), so a copy
  // after such a gap is a new event (limits.spec.ts tests that).
  const withDuplicates = <E extends { ts: number }>(arb: fc.Arbitrary<E[]>, ttlMs = Infinity) =>
    fc.tuple(arb, fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 20 })).map(([events, picks]) => {
      const out: { e: E; dup: boolean }[] = events.map((e) => ({ e, dup: false }));
      for (const [from, to] of picks) {
        const i = from % events.length;
        const src = events[i]!;
        let next = i + 1; // the first event of the next life
        while (next < events.length && events[next]!.ts - events[next - 1]!.ts <= ttlMs) next++;
        const at = out.findIndex((x) => !x.dup && x.e === src);
        const stop = next < events.length ? out.findIndex((x) => !x.dup && x.e === events[next]) : out.length;
        out.splice(at + 1 + (to % (stop - at)), 0, { e: src, dup: true });
      }
      return { events, delivered: out };
    });

  it('tool-loop: a redelivered event changes nothing and a redelivered call gets its original decision', () => {
    fc.assert(
      fc.property(withDuplicates(toolStream(false), TTL_MS), ({ events, delivered }) => {
        const clean = run(tool, events).decisions;
        const firstById = new Map<string, unknown>();
        const seen: unknown[] = [];
        const states = new Map();
        for (const { e, dup } of delivered) {
          const ds = run(tool, [e], states).decisions;
          if (!dup) {
            seen.push(...ds);
            if (e.type === 'tool_call') firstById.set(e.eventId as string, ds);
            continue;
          }
          if (e.type !== 'tool_call') {
            expect(ds).toEqual([]);
            continue;
          }
          // Every duplicate is inserted after its original, so the first decisions must be on record.
          expect(firstById.has(e.eventId as string)).toBe(true);
          expect(ds).toEqual(firstById.get(e.eventId as string));
        }
        expect(seen).toEqual(clean);
      }),
      { numRuns: 150 },
    );
  });

  it('tool-loop, early preset: a redelivered event changes nothing and a redelivered call gets its original decision', () => {
    fc.assert(
      fc.property(withDuplicates(earlyStream(), TTL_MS), ({ events, delivered }) => {
        const clean = run(early, events).decisions;
        const firstById = new Map<string, unknown>();
        const seen: unknown[] = [];
        const states = new Map();
        for (const { e, dup } of delivered) {
          const ds = run(early, [e], states).decisions;
          if (!dup) {
            seen.push(...ds);
            if (e.type === 'tool_call') firstById.set(e.eventId as string, ds);
            continue;
          }
          if (e.type !== 'tool_call') expect(ds).toEqual([]);
          else expect(ds).toEqual(firstById.get(e.eventId as string));
        }
        expect(seen).toEqual(clean);
      }),
      { numRuns: 150 },
    );
  });

  it('tool-loop keyed by session: a redelivered event changes nothing and a redelivered call gets its original decision', () => {
    fc.assert(
      fc.property(withDuplicates(sessionStream(), TTL_MS), ({ events, delivered }) => {
        const clean = run(sessions, events).decisions;
        const firstById = new Map<string, unknown>();
        const seen: unknown[] = [];
        const states = new Map();
        for (const { e, dup } of delivered) {
          const ds = run(sessions, [e], states).decisions;
          if (!dup) {
            seen.push(...ds);
            if (e.type === 'tool_call') firstById.set(e.eventId as string, ds);
            continue;
          }
          if (e.type !== 'tool_call') expect(ds).toEqual([]);
          else expect(ds).toEqual(firstById.get(e.eventId as string));
        }
        expect(seen).toEqual(clean);
      }),
      { numRuns: 150 },
    );
  });

  it('bot-loop: a redelivered message is recorded by neither budget', () => {
    fc.assert(
      fc.property(withDuplicates(botStream), ({ events, delivered }) => {
        const clean = run(bot, events).decisions;
        const states = new Map();
        const firsts: unknown[] = [];
        for (const { e, dup } of delivered) {
          const ds = run(bot, [e], states).decisions;
          if (!dup) firsts.push(...ds);
        }
        expect(firsts).toEqual(clean);
      }),
      { numRuns: 150 },
    );
  });
});
