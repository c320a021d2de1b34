// Conformance audit of docs/behaviour.md §4.1, §4.5–§4.7 (bot side): the cases a strict reader
// of each sentence would write, at its boundaries. Complements policy.spec and policyLaws.spec.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { given } from '../kernel/spec.js';
import { parseChannelEvent } from './events.js';
import { botLoopProcess, type BotDecision, type BotLoopBlock, type BotMessage, type BotPolicyBlock, type ChannelEvent, type HumanMessage } from './index.js';

const T0 = 1_700_000_000_000;
const H = 100_000; // slow-loop horizon, ms
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
const last = (p: ReturnType<typeof proc>, events: readonly ChannelEvent[]) => decide(p, events).at(-1)!;
const slow3 = proc({ slowLoop: { maxBotMessages: 3, horizonSeconds: H / 1000 } });

describe('slow loop window (max(h, t − horizon), t]', () => {
  it('judges an older message only against messages at or before it', () => {
    const ds = decide(slow3, [msg(T0 + 10), msg(T0 + 20), msg(T0 + 30), msg(T0 + 5)]);
    expect(ds.map((d) => d.decision)).toEqual(['deliver', 'deliver', 'deliver', 'deliver']);
    // …and the older message is counted: the next one makes five in the window.
    expect(last(slow3, [msg(T0 + 10), msg(T0 + 20), msg(T0 + 5), msg(T0 + 30)])).toMatchObject({ decision: 'suppress', evidence: { since: T0 + 5, count: 4 } });
  });
  it('starts the window at h when h is later than t − horizon, at t − horizon otherwise', () => {
    const h = T0 + 50;
    expect(last(slow3, [msg(T0 + 10), msg(T0 + 20), human(h), msg(T0 + 60), msg(T0 + 70), msg(T0 + 80)]).decision).toBe('deliver');
    expect(last(slow3, [msg(T0 + 10), msg(T0 + 20), human(h), msg(T0 + 60), msg(T0 + 70), msg(T0 + 80), msg(T0 + 90)])).toMatchObject({
      decision: 'suppress',
      evidence: { since: T0 + 60, count: 4 },
    });
    // A human far in the past: the horizon bounds the window.
    const early = [human(T0 - 1), msg(T0), msg(T0 + 1), msg(T0 + 2)];
    expect(last(slow3, [...early, msg(T0 + H)]).decision).toBe('deliver');
    expect(last(slow3, [...early, msg(T0 + H - 1)]).decision).toBe('suppress');
  });
  it('judges an older message against every kept message in its own window, even ones older than a newer message’s horizon', () => {
    // The newest message (T0+200s) is more than a horizon after the first three; the older
    // message at T0+40 still has them in (T0+40 − H, T0+40], and all four are among the 4 newest kept.
    const ds = decide(slow3, [msg(T0 + 10), msg(T0 + 20), msg(T0 + 30), msg(T0 + 200_000), msg(T0 + 40)]);
    expect(ds.slice(0, 4).every((d) => d.decision === 'deliver')).toBe(true);
    expect(ds[4]).toMatchObject({ decision: 'suppress', reason: 'slow_loop', cooldownUntil: T0 + 40 + H, evidence: { since: T0 + 10, count: 4, senders: ['A'] } });
  });
  it('takes h as the greatest human ts so far: an older human_message does not lower it', () => {
    const ds = decide(slow3, [human(T0 + 50), human(T0 + 10), msg(T0 + 20), msg(T0 + 30), msg(T0 + 40), msg(T0 + 50), msg(T0 + 60)]);
    expect(ds.every((d) => d.decision === 'deliver')).toBe(true);
  });
  it('does not count a repeated eventId', () => {
    const m = msg(T0, 'A', 'B', { eventId: 'e' });
    expect(decide(slow3, [m, m, m, m, m, msg(T0 + 1)]).every((d) => d.decision === 'deliver')).toBe(true);
  });
  it('counts a message the pair budget suppresses, and one inside a pair cooldown', () => {
    const p = proc({ slowLoop: { maxBotMessages: 3, horizonSeconds: H / 1000 } }, { maxEventsPerWindow: 2, cooldownSeconds: 60 });
    const ds = decide(p, [msg(T0), msg(T0 + 1), msg(T0 + 2), msg(T0 + 3)]);
    expect(ds[2]).toMatchObject({ reason: 'pair_budget', cooldownUntil: T0 + 2 + 60_000 });
    expect(ds[3]).toMatchObject({ reason: 'slow_loop', cooldownUntil: T0 + 3 + H, evidence: { since: T0, count: 4, senders: ['A'] } });
  });
  it('suppresses a hop-limited message inside a slow-loop cooldown as slow_loop, and does not count it', () => {
    const p = proc({ slowLoop: { maxBotMessages: 3, horizonSeconds: H / 1000 }, hopLimit: {} });
    const trip = [msg(T0), msg(T0 + 1), msg(T0 + 2), msg(T0 + 3)];
    expect(last(p, [...trip, msg(T0 + 4, 'A', 'B', { hopLimit: 0 })])).toMatchObject({ reason: 'slow_loop', cooldownUntil: T0 + 3 + H });
    // Window (T0+3, T0+3+H] after the cooldown: three new messages, and T0+4 would be a fourth.
    const after = [...trip, msg(T0 + 4, 'A', 'B', { hopLimit: 0 }), msg(T0 + 3 + H), msg(T0 + 3 + H, 'B', 'A'), msg(T0 + 3 + H)];
    expect(last(p, after).decision).toBe('deliver');
  });
});

describe('human messages and the slow-loop cooldown', () => {
  const trip = [msg(T0), msg(T0 + 1), msg(T0 + 2), msg(T0 + 3)]; // cooldown [T0+3, T0+3+H)
  it('end a cooldown at exactly its start: a message then at that ts is delivered (and not counted)', () => {
    const ds = decide(slow3, [...trip, human(T0 + 3), msg(T0 + 3), msg(T0 + 4), msg(T0 + 5), msg(T0 + 6)]);
    expect(ds.slice(4).map((d) => d.decision)).toEqual(['deliver', 'deliver', 'deliver', 'deliver']);
  });
  it('do not touch a cooldown that is already over at their ts', () => {
    const p = proc({ slowLoop: { maxBotMessages: 3, horizonSeconds: H / 1000 } });
    // A message older than the human, inside the old cooldown, is still suppressed with the original end.
    const ids = trip.map((m, i) => ({ ...m, eventId: `m${i}` }));
    given(p, [...ids, human(T0 + 3 + H)])
      .when(ids[3]!)
      .then((ds) => expect(ds[0]).toMatchObject({ decision: 'suppress', reason: 'slow_loop', cooldownUntil: T0 + 3 + H }));
  });
  it('end it without human reset, and leave it in force before their ts with cooldownUntil = h', () => {
    given(slow3, [...trip, human(T0 + 50)])
      .when(msg(T0 + 40))
      .then((ds) => expect(ds[0]).toMatchObject({ decision: 'suppress', reason: 'slow_loop', cooldownUntil: T0 + 50, evidence: { since: T0, count: 4 } }));
  });
});

describe('repeated eventIds: the current state at their own ts', () => {
  it('answers with the slow-loop cooldown and its evidence when the id falls inside it', () => {
    const m = msg(T0 + 3, 'A', 'B', { eventId: 'late' });
    const ds = decide(slow3, [msg(T0), msg(T0 + 1), msg(T0 + 2), m, m]);
    expect(ds[3]).toMatchObject({ decision: 'suppress', reason: 'slow_loop' });
    expect(ds[4]).toEqual({ ...ds[3] });
  });
  it('delivers a repeated id whose ts is before a cooldown that started later', () => {
    const m = msg(T0, 'A', 'B', { eventId: 'first' });
    expect(last(slow3, [m, msg(T0 + 1), msg(T0 + 2), msg(T0 + 3), m]).decision).toBe('deliver');
  });
  it('reports the later of a pair and a slow-loop cooldown, with that cooldown’s evidence', () => {
    const p = proc({ slowLoop: { maxBotMessages: 3, horizonSeconds: H / 1000 } }, { maxEventsPerWindow: 3, cooldownSeconds: 60 });
    const m = msg(T0 + 3, 'A', 'B', { eventId: 'x' });
    const ds = decide(p, [msg(T0), msg(T0 + 1), msg(T0 + 2), m, m]);
    expect(ds[3]).toMatchObject({ reason: 'slow_loop', cooldownUntil: T0 + 3 + H });
    expect(ds[4]).toMatchObject({ reason: 'slow_loop', cooldownUntil: T0 + 3 + H, evidence: { since: T0, count: 4, senders: ['A'] } });
  });
  it('carries replyHopLimit and shadow like any other decision', () => {
    const p = proc({ mode: 'shadow', hopLimit: { maxOutgoing: 2 } });
    const m = msg(T0, 'A', 'B', { eventId: 'x', hopLimit: 5 });
    expect(decide(p, [m, m])).toMatchObject([
      { decision: 'deliver', replyHopLimit: 2, shadow: true },
      { decision: 'deliver', replyHopLimit: 2, shadow: true },
    ]);
  });
});

describe('human reset', () => {
  const reset = proc({ humanReset: true }, { maxEventsPerWindow: 2, cooldownSeconds: 60 });
  it('drops the timestamps ≤ h of every pair of the conversation, not only of pairs in cooldown', () => {
    const ds = decide(reset, [msg(T0), msg(T0 + 1), human(T0 + 1), msg(T0 + 2), msg(T0 + 3), msg(T0 + 4)]);
    expect(ds.map((d) => d.decision)).toEqual(['deliver', 'deliver', 'deliver', 'deliver', 'suppress']);
    expect(ds[4]).toMatchObject({ evidence: { since: T0 + 2, count: 3 } });
  });
  it('keeps timestamps after h', () => {
    const ds = decide(reset, [msg(T0 + 5), msg(T0 + 6), human(T0 + 1), msg(T0 + 7)]);
    expect(ds.at(-1)).toMatchObject({ decision: 'suppress', reason: 'pair_budget', evidence: { since: T0 + 5, count: 3 } });
  });
  it('judges an event older than h against the state as it then stands', () => {
    const ds = decide(reset, [msg(T0 + 10), msg(T0 + 11), msg(T0 + 12), human(T0 + 20), msg(T0 + 15)]);
    // The pair cooldown [T0+12, T0+20) still covers T0+15.
    expect(ds.at(-1)).toMatchObject({ decision: 'suppress', reason: 'pair_budget', cooldownUntil: T0 + 20 });
    const before = decide(reset, [msg(T0 + 10), msg(T0 + 11), msg(T0 + 12), human(T0 + 20), msg(T0 + 5), msg(T0 + 6)]);
    // Timestamps ≤ h were dropped, so the two older events are judged on their own.
    expect(before.slice(-2).map((d) => d.decision)).toEqual(['deliver', 'deliver']);
  });
  it('ends the conversation-budget cooldown of every receiver in the conversation', () => {
    const p = proc({ humanReset: true }, { maxEventsPerWindow: 100, maxConversationBotEvents: 3 });
    const storm = (to: string, a: string, c: string, t: number) => [msg(t, a, to), msg(t + 1, c, to), msg(t + 2, a, to), msg(t + 3, c, to)];
    const ds = decide(p, [...storm('B', 'A', 'C', T0), ...storm('X', 'Y', 'Z', T0), human(T0 + 10), msg(T0 + 11, 'A', 'B'), msg(T0 + 11, 'Y', 'X')]);
    expect(ds[3]).toMatchObject({ reason: 'conversation_budget' });
    expect(ds[7]).toMatchObject({ reason: 'conversation_budget' });
    expect(ds.slice(-2).map((d) => d.decision)).toEqual(['deliver', 'deliver']);
  });
});

describe('conversation budget with the pair: later cooldown wins', () => {
  it('reports conversation_budget when an event in its pair cooldown starts a later-ending conversation cooldown', () => {
    const p = proc(undefined, { maxEventsPerWindow: 2, cooldownSeconds: 60, maxConversationBotEvents: 3 });
    const ds = decide(p, [msg(T0, 'A', 'B'), msg(T0 + 1, 'A', 'B'), msg(T0 + 2, 'A', 'B'), msg(T0 + 3, 'C', 'B'), msg(T0 + 4, 'A', 'B'), msg(T0 + 5, 'C', 'B')]);
    expect(ds[2]).toMatchObject({ reason: 'pair_budget', cooldownUntil: T0 + 2 + 60_000 });
    expect(ds[4]).toMatchObject({ reason: 'pair_budget', cooldownUntil: T0 + 2 + 60_000 });
    expect(ds[5]).toMatchObject({ reason: 'conversation_budget', cooldownUntil: T0 + 5 + 60_000, evidence: { since: T0, count: 6, senders: ['A', 'C'] } });
  });
  it('reports pair_budget on a tie with conversation_budget', () => {
    const p = proc(undefined, { maxEventsPerWindow: 2, cooldownSeconds: 60, maxConversationBotEvents: 3 });
    // At T0+3 the pair B–C has its third event and receiver B its fourth from two busy senders.
    const ds = decide(p, [msg(T0 - 1, 'B', 'C'), msg(T0, 'A', 'B'), msg(T0 + 1, 'C', 'B'), msg(T0 + 2, 'A', 'B'), msg(T0 + 3, 'C', 'B')]);
    expect(ds.slice(0, 4).every((d) => d.decision === 'deliver')).toBe(true);
    expect(ds[4]).toMatchObject({ reason: 'pair_budget', cooldownUntil: T0 + 3 + 60_000, evidence: { since: T0 - 1, count: 3, senders: ['B', 'C'] } });
  });
  it('keeps a later-ending conversation cooldown and its evidence when an older event trips it', () => {
    const p = proc(undefined, { maxEventsPerWindow: 100, cooldownSeconds: 60, maxConversationBotEvents: 3 });
    const later = [msg(T0 + 1000, 'A', 'B'), msg(T0 + 1001, 'C', 'B'), msg(T0 + 1002, 'A', 'B'), msg(T0 + 1003, 'C', 'B')];
    const older = [msg(T0 + 10, 'A', 'B'), msg(T0 + 11, 'C', 'B'), msg(T0 + 12, 'A', 'B'), msg(T0 + 13, 'C', 'B')];
    const ds = decide(p, [...later, ...older]);
    expect(ds[3]).toMatchObject({ reason: 'conversation_budget', cooldownUntil: T0 + 1003 + 60_000 });
    expect(ds.at(-1)).toMatchObject({ reason: 'conversation_budget', cooldownUntil: T0 + 1003 + 60_000, evidence: { since: T0 + 1000, count: 4 } });
  });
});

describe('hop limits', () => {
  it.each([
    [1, 0, 0],
    [1, 1, 0],
    [1, 2, 1],
    [1, 3, 1],
    [1, undefined, 1],
    [5, 4, 3],
    [5, 6, 5],
    [5, 7, 5],
    [5, undefined, 5],
  ])('maxOutgoing %s, hopLimit %s: replyHopLimit %s', (maxOutgoing, hopLimit, reply) => {
    const p = proc({ hopLimit: { maxOutgoing } });
    expect(last(p, [msg(T0, 'A', 'B', hopLimit === undefined ? {} : { hopLimit })]).replyHopLimit).toBe(reply);
  });
  it('applies to a message of a disabled pair budget, with replyHopLimit', () => {
    const p = proc({ hopLimit: {} }, { enabled: false });
    expect(decide(p, [msg(T0, 'A', 'B', { hopLimit: 1 }), msg(T0 + 1, 'A', 'B', { hopLimit: 2 })])).toMatchObject([
      { decision: 'suppress', reason: 'hop_limit', cooldownUntil: T0, replyHopLimit: 0, evidence: { since: T0, count: 1, senders: ['A'] } },
      { decision: 'deliver', reason: null, replyHopLimit: 1 },
    ]);
  });
  it('follows the channel: a channel that sets its own hopLimit replaces the global numbers', () => {
    const p = proc({ hopLimit: { maxOutgoing: 5 }, channels: { discord: { hopLimit: {} } } });
    expect(decide(p, [msg(T0), msg(T0, 'A', 'B', { channel: 'discord' })]).map((d) => d.replyHopLimit)).toEqual([5, 3]);
  });
  it('counts a hop-limited message in the pair budget, which may then report the later pair cooldown', () => {
    const p = proc({ hopLimit: {} }, { maxEventsPerWindow: 1, cooldownSeconds: 60 });
    const ds = decide(p, [msg(T0), msg(T0 + 1, 'B', 'A', { hopLimit: 1 })]);
    expect(ds[1]).toMatchObject({ reason: 'pair_budget', cooldownUntil: T0 + 1 + 60_000, evidence: { since: T0, count: 2, senders: ['A', 'B'] } });
  });
});

describe('shadow on every decision of the message', () => {
  it('marks untracked, delivered, hop-limited and cooldown decisions alike', () => {
    const p = proc({ mode: 'shadow', hopLimit: {}, slowLoop: { maxBotMessages: 1, horizonSeconds: 100 } });
    const ds = decide(p, [msg(T0, 'A', 'A'), msg(T0 + 1), msg(T0 + 2, 'A', 'B', { hopLimit: 0 }), msg(T0 + 3), msg(T0 + 4, 'A', 'B', { accountId: '' })]);
    expect(ds.map((d) => [d.decision, d.shadow])).toEqual([
      ['deliver', true],
      ['deliver', true],
      ['suppress', true],
      ['suppress', true],
      ['deliver', true],
    ]);
  });
});

describe('wire: hopLimit and human_message', () => {
  const raw = { type: 'bot_message', ts: T0, channel: 'slack', accountId: 'T', conversationId: 'C', senderId: 'A', receiverId: 'B' };
  it.each([0, 1, 7])('accepts hopLimit %s', (hopLimit) => {
    expect(parseChannelEvent({ ...raw, hopLimit })).toMatchObject({ ok: true, value: { hopLimit } });
  });
  it.each([-1, 1.5, '2', true])('refuses hopLimit %j', (hopLimit) => {
    expect(parseChannelEvent({ ...raw, hopLimit }).ok).toBe(false);
  });
  it('takes a null hopLimit as absent', () => {
    const r = parseChannelEvent({ ...raw, hopLimit: null });
    expect(r.ok && r.value.type === 'bot_message' && r.value.hopLimit).toBeUndefined();
  });
  const h = { type: 'human_message', ts: T0, channel: 'slack', accountId: 'T', conversationId: 'C', senderId: 'U' };
  it.each(['channel', 'accountId', 'conversationId', 'ts'])('makes a human_message without %s invalid', (field) => {
    const { [field]: _, ...rest } = h as Record<string, unknown>;
    expect(parseChannelEvent(rest).ok).toBe(false);
  });
  it('accepts a human_message with an empty conversationId (then ignored)', () => {
    expect(parseChannelEvent({ ...h, conversationId: '' }).ok).toBe(true);
  });
});

// ---- a reference model written from the text of §3.3, §3.4, §4.5–§4.7 alone --------------------
// Deliberately naive (lists, no shortcuts), for one conversation; the processor must agree with
// it on every generated stream.
interface ModelCooldown {
  start: number;
  until: number;
  evidence: { since: number; count: number; senders: string[] };
}
interface ModelConfig {
  max: number;
  windowMs: number;
  cooldownMs: number;
  convLimit: number;
  slowMax: number;
  horizonMs: number;
  humanReset: boolean;
  maxOutgoing: number;
}
const active = (c: ModelCooldown | null, t: number): c is ModelCooldown => c !== null && c.start <= t && t < c.until;
const tripModel = (cur: ModelCooldown | null, t: number, ms: number, evidence: ModelCooldown['evidence']) =>
  cur !== null && cur.until > t + ms ? cur : { start: t, until: t + ms, evidence };
const keepNewest = (xs: Array<[number, string]>, item: [number, string], n: number) => {
  let i = xs.length;
  while (i > 0 && xs[i - 1]![0] > item[0]) i--;
  xs.splice(i, 0, item);
  while (xs.length > n) xs.shift();
};

function referenceModel(cfg: ModelConfig) {
  const pairs = new Map<string, { ts: number[]; cd: ModelCooldown | null; seen: Map<string, number>; stream: number }>();
  const receivers = new Map<string, { ev: Array<[number, string]>; cd: ModelCooldown | null }>();
  const slow = { h: null as number | null, counted: [] as Array<[number, string]>, cd: null as ModelCooldown | null, humanIds: new Set<string>() };
  const retention = cfg.windowMs + cfg.cooldownMs + 600_000;
  type S = { until: number; reason: string; evidence: ModelCooldown['evidence'] } | null;
  const by = (reason: string, c: ModelCooldown | null): S => (c ? { until: c.until, reason, evidence: c.evidence } : null);
  const pick = (ss: S[]) => ss.reduce<S>((best, s) => (s !== null && (best === null || s.until > best.until) ? s : best), null);

  return (e: ChannelEvent) => {
    if (e.type === 'human_message') {
      if (e.eventId !== undefined && slow.humanIds.has(e.eventId)) return null;
      if (e.eventId !== undefined) slow.humanIds.add(e.eventId);
      const h = e.ts;
      slow.h = slow.h === null ? h : Math.max(slow.h, h);
      slow.counted = slow.counted.filter(([t]) => t > h);
      const end = (c: ModelCooldown | null) => (active(c, h) ? { ...c, until: h } : c);
      slow.cd = end(slow.cd);
      if (cfg.humanReset) {
        for (const p of pairs.values()) {
          p.cd = end(p.cd);
          p.ts = p.ts.filter((t) => t > h);
        }
        for (const r of receivers.values()) {
          r.cd = end(r.cd);
          r.ev = r.ev.filter(([t]) => t > h);
        }
      }
      return null;
    }
    const t = e.ts;
    const hop: S = e.hopLimit !== undefined && e.hopLimit <= 1 ? { until: t, reason: 'hop_limit', evidence: { since: t, count: 1, senders: [e.senderId] } } : null;
    const reply = e.hopLimit === undefined ? cfg.maxOutgoing : Math.max(0, Math.min(e.hopLimit - 1, cfg.maxOutgoing));
    const out = (s: S) =>
      s === null
        ? { decision: 'deliver', reason: null, cooldownUntil: null, evidence: null, replyHopLimit: reply }
        : { decision: 'suppress', reason: s.reason, cooldownUntil: s.until, evidence: s.evidence, replyHopLimit: reply };
    if (e.senderId === e.receiverId) return out(hop);
    const pid = [e.senderId, e.receiverId].sort().join('|');
    const p = pairs.get(pid) ?? { ts: [], cd: null, seen: new Map(), stream: -Infinity };
    pairs.set(pid, p);
    const r = receivers.get(e.receiverId) ?? { ev: [], cd: null };
    receivers.set(e.receiverId, r);
    p.stream = Math.max(p.stream, t);
    for (const [id, ts] of p.seen) if (p.stream > ts + retention) p.seen.delete(id);
    if (e.eventId !== undefined && p.seen.has(e.eventId)) {
      const at = (c: ModelCooldown | null) => (active(c, t) ? c : null);
      return out(pick([by('pair_budget', at(p.cd)), by('conversation_budget', at(r.cd)), by('slow_loop', at(slow.cd)), hop]));
    }
    if (e.eventId !== undefined) p.seen.set(e.eventId, t);
    // §3.3
    let pairS: S = null;
    if (active(p.cd, t)) pairS = by('pair_budget', p.cd);
    else {
      p.ts = p.ts.filter((x) => x > t - cfg.windowMs);
      p.ts.push(t);
      p.ts.sort((a, b) => a - b);
      const inWin = p.ts.filter((x) => x <= t);
      if (inWin.length > cfg.max) {
        p.cd = tripModel(p.cd, t, cfg.cooldownMs, { since: inWin[0]!, count: inWin.length, senders: [e.senderId, e.receiverId].sort() });
        p.ts = p.ts.filter((x) => x > t);
        pairS = by('pair_budget', p.cd);
      }
    }
    // §3.4
    let convS: S = null;
    keepNewest(r.ev, [t, e.senderId], 501);
    if (active(r.cd, t)) convS = by('conversation_budget', r.cd);
    else {
      const win = r.ev.filter(([x]) => x > t - 600_000 && x <= t);
      const per = new Map<string, number>();
      for (const [, s] of win) per.set(s, (per.get(s) ?? 0) + 1);
      if (win.length > cfg.convLimit && [...per.values()].filter((n) => n >= 2).length >= 2) {
        r.cd = tripModel(r.cd, t, cfg.cooldownMs, { since: Math.min(...win.map(([x]) => x)), count: win.length, senders: [...per.keys()].sort() });
        convS = by('conversation_budget', r.cd);
      }
    }
    // §4.6
    let slowS: S = null;
    if (active(slow.cd, t)) slowS = by('slow_loop', slow.cd);
    else if (slow.h === null || t > slow.h) {
      // Judged with this one included, then the newest slowMax + 1 are kept.
      keepNewest(slow.counted, [t, e.senderId], Infinity);
      const lo = Math.max(slow.h ?? -Infinity, t - cfg.horizonMs);
      const win = slow.counted.filter(([x]) => x > lo && x <= t);
      while (slow.counted.length > cfg.slowMax + 1) slow.counted.shift();
      if (win.length > cfg.slowMax) {
        slow.cd = tripModel(slow.cd, t, cfg.horizonMs, { since: Math.min(...win.map(([x]) => x)), count: win.length, senders: [...new Set(win.map(([, s]) => s))].sort() });
        slowS = by('slow_loop', slow.cd);
      }
    }
    return out(pick([pairS, convS, slowS, hop]));
  };
}

// Every window, cooldown and horizon length of the cases below.
const EDGES = [5_000, 8_000, 10_000, 12_000, 20_000, 30_000];

describe('agreement with a reference model of the text', () => {
  const events = fc
    .tuple(
      fc.array(
        fc.record({
          human: fc.integer({ min: 0, max: 9 }),
          senderId: fc.constantFrom('A', 'B', 'C'),
          receiverId: fc.constantFrom('A', 'B', 'C'),
          hopLimit: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
          id: fc.integer({ min: 0, max: 40 }),
        }),
        { minLength: 30, maxLength: 120 },
      ),
      // Mostly small steps either way, now and then a jump of more than a horizon either way, and
      // on purpose one below, at and above every window, cooldown and horizon of the cases below
      // (either way in time), so events land exactly on the edges of §3.3–§4.6.
      fc.array(
        fc.oneof(
          { weight: 4, arbitrary: fc.integer({ min: -4000, max: 5000 }) },
          { weight: 1, arbitrary: fc.integer({ min: -35_000, max: 35_000 }) },
          { weight: 3, arbitrary: fc.constantFrom(...EDGES.flatMap((e) => [e - 1, e, e + 1, -e - 1, -e, -e + 1])) },
        ),
        { minLength: 1, maxLength: 6 },
      ),
    )
    .map(([raw, gaps]) => {
      let ts = T0;
      return raw.map((e, i): ChannelEvent => {
        ts += gaps[i % gaps.length]!;
        // Ids from a small pool: redeliveries (and same-id different messages) happen often.
        const base = { ts, eventId: `e${e.id}`, channel: 'slack', accountId: 'T', conversationId: 'C', senderId: e.senderId };
        return e.human === 0 ? { type: 'human_message', ...base, eventId: `h${e.id}` } : { type: 'bot_message', ...base, receiverId: e.receiverId, hopLimit: e.hopLimit };
      });
    });
  const cases: Array<[string, ModelConfig]> = [
    ['all on', { max: 3, windowMs: 10_000, cooldownMs: 5_000, convLimit: 5, slowMax: 4, horizonMs: 20_000, humanReset: true, maxOutgoing: 2 }],
    ['slow loop longer than the budgets', { max: 6, windowMs: 10_000, cooldownMs: 8_000, convLimit: 9, slowMax: 3, horizonMs: 12_000, humanReset: false, maxOutgoing: 3 }],
    ['tight budgets', { max: 1, windowMs: 5_000, cooldownMs: 20_000, convLimit: 2, slowMax: 8, horizonMs: 30_000, humanReset: true, maxOutgoing: 1 }],
  ];
  it.each(cases)('%s', (_, m) => {
    const p = proc(
      { humanReset: m.humanReset, slowLoop: { maxBotMessages: m.slowMax, horizonSeconds: m.horizonMs / 1000 }, hopLimit: { maxOutgoing: m.maxOutgoing } },
      { maxEventsPerWindow: m.max, windowSeconds: m.windowMs / 1000, cooldownSeconds: m.cooldownMs / 1000, maxConversationBotEvents: m.convLimit },
    );
    fc.assert(
      fc.property(events, (stream) => {
        const model = referenceModel(m);
        const expected = stream.map(model).filter((d) => d !== null);
        const actual = decide(p, stream).map((d) => ({
          decision: d.decision,
          reason: d.reason,
          cooldownUntil: d.cooldownUntil,
          evidence: d.evidence,
          replyHopLimit: d.replyHopLimit,
        }));
        expect(actual).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
