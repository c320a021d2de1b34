// The laws of the bot policy, as properties over generated streams with human messages and hop
// limits: a policy that sets nothing decides exactly as no policy; shadow mode decides exactly
// as enforce mode; splits, redeliveries and frozen inputs change nothing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold } from '../kernel/process.js';
import { botLoopProcess, type BotDecision, type BotLoopBlock, type BotPolicyBlock, type ChannelEvent } from './index.js';

const T0 = 1_700_000_000_000;
const BUDGETS: BotLoopBlock = { maxEventsPerWindow: 4, windowSeconds: 10, cooldownSeconds: 5, maxConversationBotEvents: 6 };
const FULL: BotPolicyBlock = { slowLoop: { maxBotMessages: 6, horizonSeconds: 20 }, humanReset: true, hopLimit: { maxOutgoing: 2 } };
const proc = (policy?: BotPolicyBlock) => botLoopProcess({ defaults: BUDGETS, channels: {}, policy });

const stream: fc.Arbitrary<ChannelEvent[]> = fc
  .tuple(
    fc.array(
      fc.record({
        human: fc.boolean(),
        senderId: fc.constantFrom('A', 'B', 'C'),
        receiverId: fc.constantFrom('A', 'B', 'C'),
        conversationId: fc.constantFrom('c1', 'c2'),
        hopLimit: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
      }),
      { minLength: 40, maxLength: 150 },
    ),
    // Mostly small steps either way, and on purpose one below, at and above each edge: the
    // window, the cooldown, the slow-loop horizon, the conversation window (§3.3–§4.6).
    fc.array(
      fc.oneof(
        { weight: 3, arbitrary: fc.integer({ min: -3000, max: 6000 }) },
        { weight: 2, arbitrary: fc.constantFrom(...[10_000, 5_000, 20_000, 600_000, -10_000].flatMap((e) => [e - 1, e, e + 1])) },
      ),
      { minLength: 1, maxLength: 5 },
    ),
  )
  .map(([raw, gaps]) => {
    let ts = T0;
    return raw.map((e, i): ChannelEvent => {
      ts += gaps[i % gaps.length]!;
      const base = { ts, eventId: `e${i}`, channel: 'slack', accountId: 'a', conversationId: e.conversationId, senderId: e.senderId };
      // About one event in eight is a person writing.
      return e.human && i % 4 === 0 ? { type: 'human_message', ...base } : { type: 'bot_message', ...base, receiverId: e.receiverId, hopLimit: e.hopLimit };
    });
  });

/** Folds per conversation, as the partition task does. */
function run(p: ReturnType<typeof proc>, events: readonly ChannelEvent[], states = new Map<string, ReturnType<typeof proc>['initialState']>()) {
  const decisions: BotDecision[] = [];
  for (const e of events) {
    const k = p.keyOf(e);
    const r = fold(p, states.get(k) ?? p.initialState, [e]);
    states.set(k, r.state);
    decisions.push(...r.decisions);
  }
  return { decisions, states };
}

describe('bot policy laws', () => {
  it('decides exactly as no policy when the policy sets nothing that acts', () => {
    const none = proc();
    const neutral = [proc({}), proc({ mode: 'enforce', humanReset: false, channels: { discord: { slowLoop: {} } } })];
    fc.assert(
      fc.property(stream, (events) => {
        const expected = run(none, events);
        for (const p of neutral) {
          const got = run(p, events);
          expect(got.decisions).toEqual(expected.decisions);
          expect(got.states).toEqual(expected.states);
        }
      }),
      { numRuns: 100 },
    );
  });
  it('decides in shadow mode exactly as in enforce mode, every decision marked', () => {
    const enforce = proc(FULL);
    const shadow = proc({ ...FULL, mode: 'shadow' });
    fc.assert(
      fc.property(stream, (events) => {
        const e = run(enforce, events).decisions;
        const s = run(shadow, events).decisions;
        expect(s.every((d) => d.shadow === true)).toBe(true);
        expect(s.map((d) => ({ ...d, shadow: null }))).toEqual(e);
      }),
      { numRuns: 100 },
    );
  });
  it('gives the same decisions when the fold is split anywhere and the state restored', () => {
    const p = proc(FULL);
    fc.assert(
      fc.property(stream, fc.nat(), (events, at) => {
        const cut = at % (events.length + 1);
        const first = run(p, events.slice(0, cut));
        const restored = new Map([...first.states].map(([k, s]) => [k, structuredClone(s)]));
        expect([...first.decisions, ...run(p, events.slice(cut), restored).decisions]).toEqual(run(p, events).decisions);
      }),
      { numRuns: 100 },
    );
  });
  it('ignores a redelivered human message and records a redelivered bot message nowhere', () => {
    const p = proc(FULL);
    fc.assert(
      fc.property(stream, fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 20 }), (events, picks) => {
        const delivered = events.map((e) => ({ e, dup: false }));
        for (const [from, to] of picks) {
          const src = events[from % events.length]!;
          const at = delivered.findIndex((x) => !x.dup && x.e === src);
          delivered.splice(at + 1 + (to % (delivered.length - at)), 0, { e: src, dup: true });
        }
        const states = new Map();
        const firsts: BotDecision[] = [];
        for (const { e, dup } of delivered) {
          const ds = run(p, [e], states).decisions;
          if (!dup) firsts.push(...ds);
          else if (e.type === 'human_message') expect(ds).toEqual([]);
        }
        expect(firsts).toEqual(run(p, events).decisions);
      }),
      { numRuns: 100 },
    );
  });
  // Writing to a frozen event or state throws in strict mode (ES modules); the decisions must be
  // those of unfrozen inputs.
  it('never throws or mutates on frozen events and states, and decides as on unfrozen ones', () => {
    const p = proc(FULL);
    const deepFreeze = <T>(v: T): T => {
      if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
        Object.freeze(v);
        for (const x of Object.values(v)) deepFreeze(x);
      }
      return v;
    };
    fc.assert(
      fc.property(stream, (events) => {
        const frozen = deepFreeze(structuredClone(events));
        const states = new Map<string, ReturnType<typeof proc>['initialState']>();
        const decisions: BotDecision[] = [];
        for (const e of frozen) {
          const r = fold(p, states.get(p.keyOf(e)) ?? p.initialState, [e]);
          states.set(p.keyOf(e), deepFreeze(r.state));
          decisions.push(...r.decisions);
        }
        expect(decisions).toEqual(run(p, events).decisions);
      }),
      { numRuns: 50 },
    );
  });
});
