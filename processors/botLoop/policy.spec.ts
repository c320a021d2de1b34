// The bot side of loopguard's own policy (docs/behaviour.md §4.1, §4.5–§4.7), rule by rule at
// its boundaries.
import { describe, expect, it } from 'vitest';
import { fold } from '../kernel/process.js';
import { given } from '../kernel/spec.js';
import { MAX_SEEN_IDS } from './state.js';
import { botLoopProcess, type BotDecision, type BotLoopBlock, type BotMessage, type BotPolicyBlock, type ChannelEvent, type HumanMessage } from './index.js';

const T0 = 1_700_000_000_000;
const H = 100_000; // the slow-loop horizon of these specs, ms
const msg = (ts: number, from = 'A', to = 'B', extra: Partial<BotMessage> = {}): BotMessage => ({
  type: 'bot_message',
  ts,
  channel: 'slack',
  accountId: 'T',
  conversationId: 'C',
  senderId: from,
  receiverId: to,
  ...extra,
});
const human = (ts: number, extra: Partial<HumanMessage> = {}): HumanMessage => ({
  type: 'human_message',
  ts,
  channel: 'slack',
  accountId: 'T',
  conversationId: 'C',
  senderId: 'U',
  ...extra,
});
const proc = (policy: BotPolicyBlock | undefined, defaults: BotLoopBlock = { maxEventsPerWindow: 1000 }) => botLoopProcess({ defaults, channels: {}, policy });
const decide = (p: ReturnType<typeof proc>, events: readonly ChannelEvent[]) => given(p).whenAll(events) as readonly BotDecision[];
/** `n` messages one second apart from `start`, alternating A→B and B→A. */
const series = (n: number, start = T0, extra: Partial<BotMessage> = {}) => Array.from({ length: n }, (_, i) => msg(start + i * 1000, i % 2 ? 'B' : 'A', i % 2 ? 'A' : 'B', extra));

const slow = proc({ slowLoop: { maxBotMessages: 3, horizonSeconds: H / 1000 } });

describe('slow loop (§4.6)', () => {
  it('delivers maxBotMessages in the horizon and suppresses the next, starting a cooldown of one horizon for the whole conversation', () => {
    const ds = decide(slow, [...series(4), msg(T0 + 4000, 'C', 'D')]);
    expect(ds.slice(0, 3).map((d) => d.decision)).toEqual(['deliver', 'deliver', 'deliver']);
    const evidence = { since: T0, count: 4, senders: ['A', 'B'] };
    expect(ds[3]).toMatchObject({ decision: 'suppress', reason: 'slow_loop', cooldownUntil: T0 + 3000 + H, evidence });
    expect(ds[4]).toMatchObject({ decision: 'suppress', reason: 'slow_loop', cooldownUntil: T0 + 3000 + H, evidence });
  });
  it('keeps no count of a message at or before the last human ts, which no window can reach', () => {
    const afterHuman = fold(slow, slow.initialState, [human(T0 + 10_000), ...series(4, T0 + 11_000)]).state;
    for (const t of [T0 + 10_000, T0 + 5_000]) {
      const late = msg(t);
      expect(slow.decide(afterHuman, late)).toMatchObject({ answer: { decision: 'deliver' } });
      expect(slow.drops(afterHuman, late, slow.decide(afterHuman, late))).toEqual([]);
      expect(fold(slow, afterHuman, [late]).state.slow!.counted).toEqual(afterHuman.slow!.counted);
    }
  });
  it('keeps the maxBotMessages + 1 newest counted timestamps: that many are all kept, one more drops the oldest', () => {
    // One horizon apart: each message's window holds only itself, so none trips.
    const spaced = Array.from({ length: 5 }, (_, i) => msg(T0 + i * H));
    const four = fold(slow, slow.initialState, spaced.slice(0, 3)).state;
    expect(slow.drops(four, spaced[3]!, slow.decide(four, spaced[3]!))).toEqual([]);
    const kept = fold(slow, four, [spaced[3]!]).state;
    expect(kept.slow!.counted.map(([ts]) => ts)).toEqual(spaced.slice(0, 4).map((m) => m.ts));
    expect(slow.drops(kept, spaced[4]!, slow.decide(kept, spaced[4]!))).toEqual(['slow_loop_event']);
    expect(fold(slow, kept, [spaced[4]!]).state.slow!.counted.map(([ts]) => ts)).toEqual(spaced.slice(1).map((m) => m.ts));
  });
  it('forgets the counted messages at and before a human message', () => {
    const s = fold(slow, slow.initialState, [msg(T0), msg(T0 + 1), human(T0 + 1)]).state;
    expect(s.slow!.counted).toEqual([]);
  });
  it(`remembers ${MAX_SEEN_IDS} human eventIds per conversation: that many are all kept, one more drops the oldest`, () => {
    const humans = Array.from({ length: MAX_SEEN_IDS + 1 }, (_, i) => human(T0 + i, { eventId: `h${i}` }));
    const full = fold(slow, slow.initialState, humans.slice(0, MAX_SEEN_IDS - 1)).state;
    const last = humans[MAX_SEEN_IDS - 1]!;
    expect(slow.drops(full, last, slow.decide(full, last))).toEqual([]);
    const kept = fold(slow, full, [last]).state;
    expect(kept.slow!.humanIds).toHaveLength(MAX_SEEN_IDS);
    const next = humans.at(-1)!;
    expect(slow.drops(kept, next, slow.decide(kept, next))).toEqual(['human_event_id']);
    expect(fold(slow, kept, [next]).state.slow!.humanIds.map(([id]) => id)).toEqual(humans.slice(1).map((h) => h.eventId));
  });
  it('no longer counts a message exactly one horizon old', () => {
    const three = [msg(T0), msg(T0 + 1), msg(T0 + 2)];
    given(slow, three)
      .when(msg(T0 + H))
      .then((ds) => expect(ds[0]?.decision).toBe('deliver'));
    given(slow, three)
      .when(msg(T0 + H - 1))
      .then((ds) => expect(ds[0]).toMatchObject({ decision: 'suppress', reason: 'slow_loop' }));
  });
  it('suppresses without counting inside the cooldown, and counts afresh from its end', () => {
    const until = T0 + 3000 + H;
    const ds = decide(slow, [...series(4), msg(until - 1), msg(until), msg(until + 1), msg(until + 2), msg(until + 3)]);
    expect(ds.slice(4).map((d) => d.decision)).toEqual(['suppress', 'deliver', 'deliver', 'deliver', 'suppress']);
    expect(ds.at(-1)).toMatchObject({ cooldownUntil: until + 3 + H, evidence: { since: until, count: 4 } });
  });
  it('counts messages of every pair in the conversation and lists their senders, sorted', () => {
    const ds = decide(slow, [msg(T0, 'Z', 'Y'), msg(T0 + 1, 'A', 'B'), msg(T0 + 2, 'M', 'B'), msg(T0 + 3, 'A', 'Z')]);
    expect(ds[3]).toMatchObject({ decision: 'suppress', reason: 'slow_loop', evidence: { since: T0, count: 4, senders: ['A', 'M', 'Z'] } });
  });
  it('keeps a later-ending cooldown, and its evidence, when an older message trips', () => {
    const ds = decide(slow, [msg(T0 + 10), msg(T0 + 20), msg(T0 + 30), msg(T0 + 100), msg(T0 + 40)]);
    const kept = { decision: 'suppress', reason: 'slow_loop', cooldownUntil: T0 + 100 + H, evidence: { since: T0 + 10, count: 4 } };
    expect(ds[3]).toMatchObject(kept);
    expect(ds[4]).toMatchObject(kept);
  });
  it('keeps at most maxBotMessages + 1 timestamps per conversation', () => {
    const s = fold(slow, slow.initialState, series(50, T0)).state;
    expect(s.slow?.counted).toHaveLength(4);
  });
  it('does not count untracked messages', () => {
    const ds = decide(slow, [msg(T0, 'A', 'A'), msg(T0 + 1, 'A', 'B', { accountId: '' }), msg(T0 + 2), msg(T0 + 3), msg(T0 + 4)]);
    expect(ds.every((d) => d.decision === 'deliver')).toBe(true);
  });
  it('is off without a slowLoop block', () => {
    expect(decide(proc({ humanReset: true }), series(200)).every((d) => d.decision === 'deliver')).toBe(true);
  });
});

describe('human messages (§4.6)', () => {
  it('end a slow-loop cooldown active at their ts, at that ts, and start the count afresh', () => {
    const ds = decide(slow, [...series(4), human(T0 + 5000), msg(T0 + 5001), msg(T0 + 5002), msg(T0 + 5003), msg(T0 + 5004)]);
    expect(ds.slice(4).map((d) => d.decision)).toEqual(['deliver', 'deliver', 'deliver', 'suppress']);
    expect(ds.at(-1)).toMatchObject({ reason: 'slow_loop', evidence: { since: T0 + 5001, count: 4 } });
  });
  it('get no decision', () => {
    given(slow, series(4))
      .when(human(T0 + 5000))
      .then((ds, s) => {
        expect(ds).toEqual([]);
        expect(s.slow?.cooldown?.until).toBe(T0 + 5000);
      });
  });
  it('bound the window from below: a message at exactly the human ts, or before it, does not count', () => {
    const h = T0 + 50_000;
    const ds = decide(slow, [human(h), msg(h), msg(h), msg(h), msg(h - 1), msg(h), msg(h + 1), msg(h + 2), msg(h + 3), msg(h + 4)]);
    expect(ds.slice(0, 8).every((d) => d.decision === 'deliver')).toBe(true);
    expect(ds.at(-1)).toMatchObject({ decision: 'suppress', evidence: { since: h + 1, count: 4 } });
  });
  it('do not end a cooldown that starts after them', () => {
    given(slow, [...series(4), human(T0 + 2500)])
      .when(msg(T0 + 4000))
      .then((ds) => expect(ds[0]).toMatchObject({ decision: 'suppress', reason: 'slow_loop', cooldownUntil: T0 + 3000 + H }));
  });
  it('are ignored when repeated (same eventId), however the state has moved on', () => {
    const reset = proc({ humanReset: true }, { maxEventsPerWindow: 2 });
    const h1 = human(T0 + 30_000, { eventId: 'h1' });
    // After h1, older messages trip a pair cooldown that is active at h1's ts.
    const history = [h1, msg(T0 + 10_000), msg(T0 + 10_001), msg(T0 + 10_002)];
    given(reset, [...history, h1])
      .when(msg(T0 + 40_000))
      .then((ds) => expect(ds[0]).toMatchObject({ decision: 'suppress', reason: 'pair_budget', cooldownUntil: T0 + 70_002 }));
    given(reset, [...history, human(T0 + 30_000, { eventId: 'h2' })])
      .when(msg(T0 + 40_000))
      .then((ds) => expect(ds[0]?.decision).toBe('deliver'));
  });
  it('are ignored with an empty channel, accountId or conversationId', () => {
    for (const empty of [{ channel: '' }, { accountId: '' }, { conversationId: '' }]) {
      const g = given(slow, series(4));
      g.when(human(T0 + 5000, empty)).then((_, s) => expect(s).toBe(g.state));
    }
  });
  it('are ignored when the policy has neither slowLoop nor humanReset', () => {
    const p = proc({ mode: 'shadow', hopLimit: {} });
    given(p)
      .when(human(T0))
      .then((_, s) => expect(s).toBe(p.initialState));
  });
  it('keep the conversation from being swept while the last human ts can still matter', () => {
    const p = proc({ slowLoop: {} });
    const s = fold(p, p.initialState, [human(T0)]).state;
    expect(p.isEmpty(s)).toBe(false);
    expect(p.isExpired(s, T0 + 10_800_000 - 1)).toBe(false);
    expect(p.isExpired(s, T0 + 10_800_000)).toBe(true);
  });
  it('keep a conversation while a counted message is within the horizon or its cooldown runs, and not at their end', () => {
    const hour = proc({ slowLoop: { maxBotMessages: 3, horizonSeconds: 3600 } });
    const s = fold(hour, hour.initialState, series(4)).state;
    const end = T0 + 3000 + 3_600_000;
    expect(s.slow!.cooldown).toMatchObject({ start: T0 + 3000, until: end });
    expect(hour.isExpired(s, end - 1)).toBe(false);
    expect(hour.isExpired(s, end)).toBe(true);
  });
});

describe('human reset (§4.6)', () => {
  const reset = (humanReset: boolean) => proc({ humanReset }, { maxEventsPerWindow: 2, cooldownSeconds: 60 });
  const tripped = [msg(T0), msg(T0 + 1), msg(T0 + 2)];
  it('ends a pair cooldown active at the human ts and drops the timestamps at or before it', () => {
    const ds = decide(reset(true), [...tripped, human(T0 + 10), msg(T0 + 11), msg(T0 + 12), msg(T0 + 13)]);
    expect(ds.slice(3).map((d) => d.decision)).toEqual(['deliver', 'deliver', 'suppress']);
    expect(ds.at(-1)).toMatchObject({ reason: 'pair_budget', cooldownUntil: T0 + 13 + 60_000, evidence: { since: T0 + 11, count: 3 } });
  });
  it('leaves the pair budget alone without humanReset', () => {
    given(reset(false), [...tripped, human(T0 + 10)])
      .when(msg(T0 + 11))
      .then((ds) => expect(ds[0]).toMatchObject({ decision: 'suppress', reason: 'pair_budget', cooldownUntil: T0 + 60_002 }));
  });
  it('ends a conversation-budget cooldown active at the human ts and empties its window up to it', () => {
    const p = proc({ humanReset: true }, { maxEventsPerWindow: 100, maxConversationBotEvents: 3 });
    const storm = [msg(T0, 'A', 'B'), msg(T0 + 1, 'C', 'B'), msg(T0 + 2, 'A', 'B'), msg(T0 + 3, 'C', 'B')];
    const ds = decide(p, [...storm, human(T0 + 10), ...storm.map((m) => ({ ...m, ts: m.ts + 20 }))]);
    expect(ds[3]).toMatchObject({ decision: 'suppress', reason: 'conversation_budget' });
    expect(ds.slice(4).map((d) => d.decision)).toEqual(['deliver', 'deliver', 'deliver', 'suppress']);
  });
  it('leaves the ended cooldown in force before the human ts, reporting the human ts as its end', () => {
    const ids = tripped.map((m, i) => ({ ...m, eventId: `m${i}` }));
    given(reset(true), [...ids, human(T0 + 10)])
      .when(ids[2]!)
      .then((ds) => expect(ds[0]).toMatchObject({ decision: 'suppress', reason: 'pair_budget', cooldownUntil: T0 + 10, evidence: { since: T0, count: 3 } }));
  });
});

describe('hop limits (§4.7)', () => {
  const hop = proc({ hopLimit: { maxOutgoing: 3 } });
  const one = (p: ReturnType<typeof proc>, m: BotMessage) => given(p).when(m).decisions[0]!;
  it.each([
    [0, 'suppress', 0],
    [1, 'suppress', 0],
    [2, 'deliver', 1],
    [4, 'deliver', 3],
    [5, 'deliver', 3],
    [undefined, 'deliver', 3],
  ])('with hopLimit %s: %s, replyHopLimit %s', (hopLimit, decision, reply) => {
    const d = one(hop, msg(T0, 'A', 'B', hopLimit === undefined ? {} : { hopLimit }));
    expect(d).toMatchObject({ decision, replyHopLimit: reply });
    if (decision === 'suppress') expect(d).toMatchObject({ reason: 'hop_limit', cooldownUntil: T0, evidence: { since: T0, count: 1, senders: ['A'] } });
  });
  it('suppresses an untracked message too', () => {
    expect(one(hop, msg(T0, 'A', 'A', { hopLimit: 1 }))).toMatchObject({ decision: 'suppress', reason: 'hop_limit' });
    expect(one(hop, msg(T0, 'A', 'B', { hopLimit: 1, accountId: '' }))).toMatchObject({ decision: 'suppress', reason: 'hop_limit', replyHopLimit: 0 });
  });
  it('is off without a hopLimit block: no suppress, no replyHopLimit', () => {
    expect(one(proc(undefined), msg(T0, 'A', 'B', { hopLimit: 0 }))).toMatchObject({ decision: 'deliver', replyHopLimit: null, reason: null });
  });
  it('starts no cooldown, and the hop-limited message is still recorded by the budgets', () => {
    const p = proc({ hopLimit: {}, slowLoop: { maxBotMessages: 5 } }, { maxEventsPerWindow: 2 });
    const ds = decide(p, [msg(T0, 'A', 'B', { hopLimit: 0 }), msg(T0 + 1, 'B', 'A', { hopLimit: 1 }), msg(T0 + 2)]);
    expect(ds.map((d) => d.reason)).toEqual(['hop_limit', 'hop_limit', 'pair_budget']);
    const sp = proc({ hopLimit: {}, slowLoop: { maxBotMessages: 1 } });
    expect(decide(sp, [msg(T0, 'A', 'B', { hopLimit: 0 }), msg(T0 + 1)]).at(-1)).toMatchObject({ reason: 'slow_loop', evidence: { since: T0, count: 2 } });
  });
  it('answers a repeated eventId with the hop limit too', () => {
    const m = msg(T0, 'A', 'B', { hopLimit: 1, eventId: 'x' });
    expect(decide(hop, [m, m]).map((d) => d.reason)).toEqual(['hop_limit', 'hop_limit']);
  });
});

describe('reasons together (§4.6)', () => {
  const both = (cooldownSeconds: number, horizonSeconds: number, extra: BotLoopBlock = {}) =>
    proc({ slowLoop: { maxBotMessages: 2, horizonSeconds }, hopLimit: {} }, { maxEventsPerWindow: 2, cooldownSeconds, ...extra });
  it('reports pair_budget over slow_loop on a tie', () => {
    expect(decide(both(60, 60), series(3)).at(-1)).toMatchObject({ reason: 'pair_budget', cooldownUntil: T0 + 2000 + 60_000 });
  });
  it('reports the later cooldownUntil: slow_loop over an earlier-ending pair cooldown', () => {
    expect(decide(both(60, 100), series(3)).at(-1)).toMatchObject({ reason: 'slow_loop', cooldownUntil: T0 + 2000 + 100_000, evidence: { count: 3 } });
  });
  it('reports conversation_budget over slow_loop on a tie', () => {
    const p = proc({ slowLoop: { maxBotMessages: 3, horizonSeconds: 60 } }, { maxEventsPerWindow: 100, cooldownSeconds: 60, maxConversationBotEvents: 3 });
    const ds = decide(p, [msg(T0, 'A', 'B'), msg(T0 + 1, 'C', 'B'), msg(T0 + 2, 'A', 'B'), msg(T0 + 3, 'C', 'B')]);
    expect(ds.at(-1)).toMatchObject({ reason: 'conversation_budget', cooldownUntil: T0 + 3 + 60_000, evidence: { since: T0, count: 4, senders: ['A', 'C'] } });
  });
  it('reports a running cooldown over hop_limit, whose cooldownUntil is the message ts', () => {
    const d = decide(both(60, 60), [...series(3), msg(T0 + 5000, 'A', 'B', { hopLimit: 0 })]).at(-1);
    expect(d).toMatchObject({ reason: 'pair_budget', cooldownUntil: T0 + 2000 + 60_000, replyHopLimit: 0 });
  });
});

describe('evidence on every suppress (§4.5)', () => {
  const pair = proc(undefined, { maxEventsPerWindow: 3, windowSeconds: 10, cooldownSeconds: 60 });
  it('names the pair window at the trip, the two bots sorted, and repeats it through the cooldown and for repeated ids', () => {
    const events = [msg(T0 - 10_000), ...series(4, T0)].map((m, i) => ({ ...m, eventId: `m${i}` }));
    const ds = decide(pair, [...events, msg(T0 + 30_000, 'B', 'A'), events[4]!]);
    const evidence = { since: T0, count: 4, senders: ['A', 'B'] };
    expect(ds[4]).toMatchObject({ reason: 'pair_budget', evidence });
    expect(ds[5]).toMatchObject({ reason: 'pair_budget', evidence });
    expect(ds[6]).toMatchObject({ reason: 'pair_budget', evidence });
  });
  it('keeps the later-ending cooldown’s evidence when an older event trips the pair', () => {
    const later = series(4, T0 + 10_000);
    const older = series(4, T0 + 1_000).map((m) => ({ ...m, ts: m.ts - 900 }));
    expect(decide(proc(undefined, { maxEventsPerWindow: 3 }), [...later, ...older]).at(-1)).toMatchObject({
      cooldownUntil: T0 + 13_000 + 60_000,
      evidence: { since: T0 + 10_000, count: 4 },
    });
  });
  it('names the conversation window at its trip with its distinct senders', () => {
    const p = proc(undefined, { maxEventsPerWindow: 100, maxConversationBotEvents: 3 });
    const ds = decide(p, [msg(T0, 'A', 'B'), msg(T0 + 1, 'C', 'B'), msg(T0 + 2, 'A', 'B'), msg(T0 + 3, 'C', 'B'), msg(T0 + 4, 'D', 'B')]);
    expect(ds.slice(3).map((d) => d.evidence)).toEqual([
      { since: T0, count: 4, senders: ['A', 'C'] },
      { since: T0, count: 4, senders: ['A', 'C'] },
    ]);
  });
  it('is absent on deliver', () => {
    expect(decide(pair, series(3)).every((d) => d.evidence === null)).toBe(true);
  });
});

describe('shadow mode (§4.1)', () => {
  const policy: BotPolicyBlock = { slowLoop: { maxBotMessages: 5, horizonSeconds: 100 }, hopLimit: {}, humanReset: true };
  const stream = [...series(6), human(T0 + 6500), msg(T0 + 7000, 'A', 'B', { hopLimit: 1 }), ...series(5, T0 + 8000)];
  it('decides and folds exactly as enforce mode, and marks every decision shadow: true', () => {
    const enforce = decide(proc(policy, { maxEventsPerWindow: 4 }), stream);
    const shadow = decide(proc({ ...policy, mode: 'shadow' }, { maxEventsPerWindow: 4 }), stream);
    expect(new Set(enforce.map((d) => d.reason))).toEqual(new Set([null, 'pair_budget', 'slow_loop', 'hop_limit']));
    expect(enforce.every((d) => d.shadow === null)).toBe(true);
    expect(shadow.every((d) => d.shadow === true)).toBe(true);
    expect(shadow.map((d) => ({ ...d, shadow: null }))).toEqual(enforce);
  });
  it('follows the channel: a channel block overrides the global mode', () => {
    const p = proc({ mode: 'shadow', channels: { discord: { mode: 'enforce' } } });
    expect(decide(p, [msg(T0), msg(T0, 'A', 'B', { channel: 'discord' })]).map((d) => d.shadow)).toEqual([true, null]);
  });
});
