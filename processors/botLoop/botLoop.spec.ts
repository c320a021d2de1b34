import { describe, expect, it } from 'vitest';
import { fold } from '../kernel/process.js';
import { given } from '../kernel/spec.js';
import { channelMessageKeyOf, conversationKeyOf, pairKeyOf } from './events.js';
import { botLoopProcess, type BotDecision, type BotLoopBlock, type BotLoopConfig, type BotMessage } from './index.js';

const T0 = 1_700_000_000_000;
const msg = (ts: number, from = 'A', to = 'B', extra: Partial<BotMessage> = {}): BotMessage =>
  ({ type: 'bot_message', ts, channel: 'discord', accountId: 'acct', conversationId: 'c1', senderId: from, receiverId: to, ...extra }) as BotMessage;
const withDefaults = (defaults: BotLoopBlock = {}): BotLoopConfig => ({ defaults, channels: {} });
const p = botLoopProcess(withDefaults());
const decide = (events: BotMessage[], proc = p) => given(proc).whenAll(events) as readonly BotDecision[];
const every = (n: number, step: number, start = T0, from = 'A', to = 'B') => Array.from({ length: n }, (_, i) => msg(start + i * step, i % 2 ? to : from, i % 2 ? from : to));

describe('pair budget', () => {
  it('delivers 20 events in a window and suppresses the 21st, starting a 60 s cooldown', () => {
    const ds = decide(every(21, 1000));
    expect(ds.slice(0, 20).every((d) => d.decision === 'deliver')).toBe(true);
    expect(ds[20]).toMatchObject({ decision: 'suppress', reason: 'pair_budget', cooldownUntil: T0 + 20_000 + 60_000 });
  });
  it('treats A→B and B→A as one pair', () => {
    const ds = decide(every(21, 100));
    expect(new Set(ds.map((d) => d.key)).size).toBe(1);
    expect(ds[20]?.decision).toBe('suppress');
  });
  it('suppresses everything during the cooldown without counting or extending it', () => {
    const events = [...every(21, 1000), ...Array.from({ length: 70 }, (_, i) => msg(T0 + 21_000 + i * 1000))];
    const ds = decide(events);
    const until = T0 + 80_000;
    expect(
      ds
        .slice(21)
        .filter((d) => d.ts < until)
        .every((d) => d.decision === 'suppress' && d.cooldownUntil === until),
    ).toBe(true);
    const after = ds.filter((d) => d.ts >= until);
    expect(after).toHaveLength(11);
    expect(after.every((d) => d.decision === 'deliver')).toBe(true);
  });
  it('restarts counting empty when the cooldown ends', () => {
    const until = T0 + 20_000 + 60_000;
    const ds = decide([...every(21, 1000), ...every(21, 10, until)]);
    expect(ds.slice(21, 41).every((d) => d.decision === 'deliver')).toBe(true);
    expect(ds[41]).toMatchObject({ decision: 'suppress', cooldownUntil: until + 200 + 60_000 });
  });
  it('no longer counts an event exactly one window old', () => {
    const events = [msg(T0), ...every(19, 10, T0 + 1000), msg(T0 + 60_000)];
    expect(decide(events).at(-1)?.decision).toBe('deliver');
    const justInside = [msg(T0), ...every(19, 10, T0 + 1000), msg(T0 + 59_999)];
    expect(decide(justInside).at(-1)?.decision).toBe('suppress');
  });
  it('judges an older event only against events at or before its own time', () => {
    const late = every(20, 100, T0 + 10_000);
    given(p, late)
      .when(msg(T0 + 5_000))
      .then((ds) => expect(ds[0]?.decision).toBe('deliver'));
  });
  it('does not apply a later cooldown to an earlier event', () => {
    const tripped = every(21, 100, T0 + 10_000);
    given(p, tripped)
      .when(msg(T0 + 1_000))
      .then((ds) => expect(ds[0]?.decision).toBe('deliver'));
  });
  it('keeps a later-ending cooldown when an older event trips one', () => {
    // 21 events from t=10 s trip a cooldown until 72 s; then 21 older events (t = 1 s .. 1.2 s) trip one that would end at 61.2 s.
    const later = every(21, 100, T0 + 10_000);
    const older = every(21, 10, T0 + 1_000);
    const ds = decide([...later, ...older]);
    expect(ds.at(-1)).toMatchObject({ decision: 'suppress', cooldownUntil: T0 + 12_000 + 60_000 });
  });
  it('does not track events with an empty identity field or a bot talking to itself', () => {
    for (const bad of [{ accountId: '' }, { conversationId: '' }, { channel: '' }, { senderId: 'B' }]) {
      const events = Array.from({ length: 30 }, (_, i) => msg(T0 + i, 'A', 'B', bad));
      expect(decide(events).every((d) => d.decision === 'deliver')).toBe(true);
    }
  });
  it('does nothing when disabled', () => {
    expect(decide(every(40, 10), botLoopProcess(withDefaults({ enabled: false }))).every((d) => d.decision === 'deliver')).toBe(true);
  });
  it('follows the configured budget, window and cooldown', () => {
    const proc = botLoopProcess(withDefaults({ maxEventsPerWindow: 3, windowSeconds: 10, cooldownSeconds: 5 }));
    const ds = decide([...every(4, 1000), msg(T0 + 3_000 + 5_000)], proc);
    expect(ds.map((d) => d.decision)).toEqual(['deliver', 'deliver', 'deliver', 'suppress', 'deliver']);
    expect(ds[3]?.cooldownUntil).toBe(T0 + 8_000);
  });
});

describe('repeated eventIds', () => {
  it('records a repeated eventId in neither budget and answers with the state at its time', () => {
    const first = { ...msg(T0), eventId: 'm1' } as BotMessage;
    const events = Array.from({ length: 25 }, () => first);
    const ds = decide(events);
    expect(ds.every((d) => d.decision === 'deliver')).toBe(true);
    const s = fold(p, p.initialState, events).state;
    expect([...s.pairs.values()][0]?.timestamps).toEqual([T0]);
  });
  it('answers suppress for a repeat that falls inside a cooldown', () => {
    const events = every(21, 100).map((e, i) => ({ ...e, eventId: `m${i}` }) as BotMessage);
    given(p, events)
      .when(events[20]!)
      .then((ds) => expect(ds[0]).toMatchObject({ decision: 'suppress', reason: 'pair_budget' }));
    given(p, events)
      .when(events[0]!)
      .then((ds) => expect(ds[0]?.decision).toBe('deliver'));
  });
  it('forgets ids once the pair has moved on by a window and a cooldown', () => {
    const m = { ...msg(T0), eventId: 'old' } as BotMessage;
    const s = fold(p, p.initialState, [m, msg(T0 + 120_001)]).state;
    expect([...s.pairs.values()][0]?.seen).toEqual([]);
  });
  it('still knows an id when the pair has moved on by exactly a window and a cooldown: a repeat is not counted', () => {
    const tight = botLoopProcess(withDefaults({ maxEventsPerWindow: 1 }));
    const m = { ...msg(T0), eventId: 'old' } as BotMessage;
    const at = T0 + 120_000;
    const s = fold(tight, tight.initialState, [m, { ...msg(at), eventId: 'new' } as BotMessage]).state;
    expect([...s.pairs.values()][0]?.seen.map(([id]) => id)).toEqual(['old', 'new']);
    // Counted, the repeat would be the window's second event and be suppressed.
    given(tight, [m, { ...msg(at), eventId: 'new' } as BotMessage])
      .when({ ...m, ts: at })
      .then((ds) => expect(ds[0]?.decision).toBe('deliver'));
    given(tight, [m, { ...msg(at + 1), eventId: 'new' } as BotMessage])
      .when({ ...m, ts: at + 1 })
      .then((ds) => expect(ds[0]).toMatchObject({ decision: 'suppress', reason: 'pair_budget' }));
  });
});

describe('conversation budget', () => {
  const conv = (limit: number) => botLoopProcess(withDefaults({ maxConversationBotEvents: limit, maxEventsPerWindow: 100 }));
  it('suppresses a storm from several bots at one receiver once the count exceeds the limit', () => {
    const events = Array.from({ length: 6 }, (_, i) => msg(T0 + i * 1000, i % 2 ? 'C' : 'A', 'B'));
    const ds = decide(events, conv(5));
    expect(ds.slice(0, 5).every((d) => d.decision === 'deliver')).toBe(true);
    expect(ds[5]).toMatchObject({ decision: 'suppress', reason: 'conversation_budget', cooldownUntil: T0 + 5000 + 60_000 });
  });
  it('needs at least two senders with two events each', () => {
    const events = [...Array.from({ length: 8 }, (_, i) => msg(T0 + i * 1000, 'A', 'B')), msg(T0 + 9000, 'C', 'B')];
    expect(decide(events, conv(5)).every((d) => d.decision === 'deliver')).toBe(true);
  });
  it('records events while suppressed, so a continuing storm re-trips when the cooldown ends', () => {
    const storm = Array.from({ length: 80 }, (_, i) => msg(T0 + i * 1000, i % 2 ? 'C' : 'A', 'B'));
    const ds = decide(storm, conv(5));
    const firstUntil = T0 + 5000 + 60_000;
    const atEnd = ds.find((d) => d.ts === firstUntil);
    expect(atEnd).toMatchObject({ decision: 'suppress', reason: 'conversation_budget', cooldownUntil: firstUntil + 60_000 });
  });
  it('reports the later cooldown when both budgets suppress', () => {
    const proc = botLoopProcess(withDefaults({ maxConversationBotEvents: 3, maxEventsPerWindow: 3 }));
    const events = [msg(T0, 'A', 'B'), msg(T0 + 1, 'C', 'B'), msg(T0 + 2, 'C', 'B'), msg(T0 + 3, 'A', 'B')];
    // the 4th event exceeds both: the pair A–B has... only 2 events, the receiver B has 4 from 2 senders with 2 each
    expect(decide(events, proc).at(-1)).toMatchObject({ decision: 'suppress', reason: 'conversation_budget' });
    const both = [msg(T0, 'A', 'B'), msg(T0 + 1, 'B', 'A'), msg(T0 + 2, 'A', 'B'), msg(T0 + 3, 'C', 'B'), msg(T0 + 4, 'C', 'B'), msg(T0 + 5, 'A', 'B')];
    expect(decide(both, proc).at(-1)).toMatchObject({ decision: 'suppress', reason: 'pair_budget', cooldownUntil: T0 + 5 + 60_000 });
  });
  it('reports the pair on a tie: both budgets trip on one message with the same cooldown', () => {
    const proc = botLoopProcess(withDefaults({ maxConversationBotEvents: 5, maxEventsPerWindow: 3 }));
    // B receives C, C, A, A, A, A: the 6th message is the pair A–B's 4th (> 3) and B's 6th from
    // two senders with two or more each (> 5).
    const events = [msg(T0, 'C', 'B'), msg(T0 + 1, 'C', 'B'), ...[2, 3, 4, 5].map((i) => msg(T0 + i, 'A', 'B'))];
    const ds = decide([...events, msg(T0 + 6, 'C', 'B')], proc);
    expect(ds.slice(0, 5).map((d) => d.decision)).toEqual(Array(5).fill('deliver'));
    expect(ds[5]).toMatchObject({ decision: 'suppress', reason: 'pair_budget', cooldownUntil: T0 + 5 + 60_000 });
    // The conversation did trip at the same message: C–B's own budget is not spent.
    expect(ds[6]).toMatchObject({ decision: 'suppress', reason: 'conversation_budget', cooldownUntil: T0 + 5 + 60_000 });
  });
  // §3.4: the window is the last 10 minutes; a message exactly 10 minutes old no longer counts.
  it.each([
    [599_999, 'suppress'],
    [600_000, 'deliver'],
    [600_001, 'deliver'],
  ])('counts a message %i ms old in the window only when younger than 10 minutes: %s', (age, decision) => {
    // Limit 3: B's 4th message in the window trips it (C and D two each).
    const events = [msg(T0, 'C', 'B'), msg(T0 + 1000, 'C', 'B'), msg(T0 + 2000, 'D', 'B'), msg(T0 + age, 'D', 'B')];
    expect(decide(events, conv(3)).at(-1)).toMatchObject({ decision });
  });
  it('keeps at most 501 events per receiver', () => {
    const proc = conv(500);
    const events = Array.from({ length: 700 }, (_, i) => msg(T0 + i, `S${i % 3}`, 'B'));
    const s = fold(proc, proc.initialState, events).state;
    expect(s.receivers.get('B')?.events).toHaveLength(501);
  });
});

describe('memory under a storm', () => {
  it('keeps a pair small however many suppressed events arrive', () => {
    const events = Array.from({ length: 20_000 }, (_, i) => ({ ...msg(T0 + i * 5), eventId: `e${i}` }) as BotMessage);
    const s = fold(p, p.initialState, events).state;
    const pair = [...s.pairs.values()][0]!;
    expect(pair.timestamps.length).toBeLessThanOrEqual(21);
    expect(pair.seen.length).toBeLessThanOrEqual(512);
    expect(JSON.stringify([...s.pairs.values()]).length).toBeLessThan(40_000);
  });
});

describe('sweeps', () => {
  it('calls a conversation idle once nothing is in window, cooling down or remembered', () => {
    const s = fold(p, p.initialState, [{ ...msg(T0), eventId: 'x' } as BotMessage]).state;
    expect(p.isExpired(s, T0 + 30_000)).toBe(false);
    expect(p.isExpired(s, T0 + 60_000 + 60_000 + 600_000 + 1)).toBe(true);
  });
  it('calls a state empty (its changelog entry deleted once committed) only when it holds nothing', () => {
    expect(p.isEmpty(p.initialState)).toBe(true);
    expect(p.isEmpty(fold(p, p.initialState, [msg(T0)]).state)).toBe(false);
    const conv = botLoopProcess(withDefaults({ maxConversationBotEvents: 5 }));
    const withReceiver = fold(conv, conv.initialState, [msg(T0)]).state;
    expect(withReceiver.receivers.size).toBe(1);
    expect(conv.isEmpty({ ...withReceiver, pairs: new Map() })).toBe(false);
    const slow = botLoopProcess({ defaults: {}, channels: {}, policy: { slowLoop: { maxBotMessages: 3, horizonSeconds: 100 } } });
    const human = { type: 'human_message', ts: T0, channel: 'discord', accountId: 'acct', conversationId: 'c1', senderId: 'U' } as const;
    const onlySlow = fold(slow, slow.initialState, [human]).state;
    expect(onlySlow.slow).not.toBeNull();
    expect(slow.isEmpty(onlySlow)).toBe(false);
  });
  // Each clause at its boundary, the others already clear: a sweep never takes state a later
  // (or older, out-of-order) event could still meet.
  it('keeps a remembered id up to exactly window + cooldown + 10 minutes after its ts', () => {
    const s = fold(p, p.initialState, [{ ...msg(T0), eventId: 'x' } as BotMessage]).state;
    expect(p.isExpired(s, T0 + 720_000)).toBe(false);
  });
  it('keeps a pair while one of its events is in window, and not at one window', () => {
    const s = fold(p, p.initialState, [msg(T0)]).state;
    expect(p.isExpired(s, T0 + 60_000 - 1)).toBe(false);
    expect(p.isExpired(s, T0 + 60_000)).toBe(true);
  });
  it('keeps a pair until its cooldown ends, and not at its end', () => {
    const s = fold(p, p.initialState, every(21, 1000)).state;
    const until = T0 + 20_000 + 60_000;
    expect(p.isExpired(s, until - 1)).toBe(false);
    expect(p.isExpired(s, until)).toBe(true);
  });
  it('keeps a conversation budget key while one of its events is within 10 minutes, and not at 10 minutes', () => {
    const conv = botLoopProcess(withDefaults({ maxConversationBotEvents: 5 }));
    const s = fold(conv, conv.initialState, [msg(T0)]).state;
    expect(conv.isExpired(s, T0 + 600_000 - 1)).toBe(false);
    expect(conv.isExpired(s, T0 + 600_000)).toBe(true);
  });
  it('keeps a conversation budget key until its cooldown ends, and not at its end', () => {
    const conv = botLoopProcess(withDefaults({ maxConversationBotEvents: 5, cooldownSeconds: 900 }));
    const burst = Array.from({ length: 6 }, (_, i) => msg(T0 + i, i % 2 ? 'C' : 'A', 'R'));
    const ds = given(conv).whenAll(burst) as readonly BotDecision[];
    expect(ds.at(-1)).toMatchObject({ decision: 'suppress', reason: 'conversation_budget', cooldownUntil: T0 + 5 + 900_000 });
    const s = fold(conv, conv.initialState, burst).state;
    expect(conv.isExpired(s, T0 + 5 + 900_000 - 1)).toBe(false);
    expect(conv.isExpired(s, T0 + 5 + 900_000)).toBe(true);
  });
});

describe('Kafka record keys', () => {
  it('keys a bot message by its pair and a human message by its conversation (§4.6)', () => {
    const bot = msg(T0, 'B', 'A');
    const human = { type: 'human_message', ts: T0, channel: 'discord', accountId: 'acct', conversationId: 'c1', senderId: 'U' } as const;
    expect(channelMessageKeyOf(bot)).toBe(pairKeyOf(msg(T0, 'A', 'B')));
    expect(channelMessageKeyOf(bot)).not.toBe(conversationKeyOf(bot));
    expect(channelMessageKeyOf(human)).toBe(conversationKeyOf(bot));
  });
});
