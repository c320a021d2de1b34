// The rules that keep one key's traffic from hurting the processor or another key
// (docs/behaviour.md §1 "Limits", eventId memory, §3.4), at their boundaries.
import { describe, expect, it } from 'vitest';
import { botLoopProcess, MAX_PAIRS, type BotDecision, type BotMessage } from './botLoop/index.js';
import { fold } from './kernel/process.js';
import { given } from './kernel/spec.js';
import { parseToolEvent, validateToolEvent } from './toolLoop/events.js';
import { MAX_EVENT_IDS, type ToolDecision } from './toolLoop/index.js';
import { runEvents, toolLoopSpec } from './toolLoop/testing/events.js';
import { parseBotMessage } from './botLoop/events.js';
import { MAX_RECEIVER_EVENTS, MAX_SEEN_IDS } from './botLoop/state.js';

const T0 = 1_700_000_000_000;
const tool = toolLoopSpec({ global: { enabled: true, warningThreshold: 2, criticalThreshold: 4 }, agents: {}, runTtlMs: 60_000 });
const calls = (ds: readonly unknown[]) => ds.filter((d): d is ToolDecision => (d as ToolDecision).type === 'tool_decision');

describe('tool eventIds', () => {
  it("say nothing across event types: a call with an outcome's eventId is decided", () => {
    const r = runEvents();
    given(tool, [{ ...r.outcome('read', { p: 1 }, 'x'), eventId: 'e1' }])
      .when({ ...r.call('read', { p: 1 }), eventId: 'e1' })
      .then((ds) => {
        expect(calls(ds)).toHaveLength(1);
      });
  });
  it('outlive run_end: a redelivered call of an ended run gets its original decision, an outcome is ignored', () => {
    const r = runEvents();
    const loop = r.repeat(2, 'read', { p: 1 }, () => 'same');
    const warned = { ...r.call('read', { p: 1 }), eventId: 'c3' };
    const outcome = { ...r.outcome('read', { p: 1 }, 'same'), eventId: 'o3' };
    const history = [...loop, warned, outcome, r.runEnd()];
    const original = given(tool, [...loop]).when(warned).decisions;
    expect(original).toMatchObject([{ decision: 'warn' }]);
    const scenario = given(tool, history);
    expect(scenario.when(warned).decisions).toEqual(original);
    expect(scenario.when(outcome).state).toBe(scenario.state);
  });
  it('are forgotten once the run key has been idle for the TTL', () => {
    const r = runEvents();
    const call = { ...r.call('read', { p: 1 }), eventId: 'c1' };
    const before = given(tool, [call, r.runEnd()]);
    r.advance(60_001);
    const again = { ...call, ts: call.ts + 70_000 };
    expect(before.when(again).state).not.toBe(before.state);
  });
  it(`keep the ${MAX_EVENT_IDS} newest per run: the oldest is then decided afresh`, () => {
    const r = runEvents();
    const ids = Array.from({ length: MAX_EVENT_IDS + 1 }, (_, i) => ({ ...r.compaction(), eventId: `e${i}` }));
    const s = given(tool, ids);
    expect(s.when({ ...ids[1]!, ts: ids.at(-1)!.ts + 1 }).state).toBe(s.state);
    expect(s.when({ ...ids[0]!, ts: ids.at(-1)!.ts + 1 }).state).not.toBe(s.state);
    expect(tool.drops(s.state, { ...r.compaction(), eventId: 'new' }, tool.decide(s.state, { ...r.compaction(), eventId: 'new' }))).toEqual(['event_id']);
  });
  it(`count a drop from the ${MAX_EVENT_IDS + 1}th remembered id on, not before`, () => {
    const r = runEvents();
    const ids = Array.from({ length: MAX_EVENT_IDS }, (_, i) => ({ ...r.compaction(), eventId: `e${i}` }));
    const next = { ...r.compaction(), eventId: 'new' };
    const almost = fold(tool, tool.initialState, ids.slice(0, -1)).state;
    expect(tool.drops(almost, ids.at(-1)!, tool.decide(almost, ids.at(-1)!))).toEqual([]);
    const full = fold(tool, almost, [ids.at(-1)!]).state;
    expect(tool.drops(full, next, tool.decide(full, next))).toEqual(['event_id']);
  });
  it('may be any string, __proto__ and constructor included', () => {
    const r = runEvents('__proto__');
    const call = { ...r.call('constructor', { p: 1 }), eventId: '__proto__', sessionKey: 'toString' };
    const first = given(tool).when(call);
    expect(calls(first.decisions)).toMatchObject([{ decision: 'allow', key: '__proto__', toolName: 'constructor' }]);
    expect(given(tool, [call]).when(call).decisions).toEqual(first.decisions);
  });
});

describe('event limits', () => {
  const call = (extra: Record<string, unknown>) => ({ type: 'tool_call', ts: T0, runId: 'r', toolName: 'read', args: {}, ...extra });
  it.each([
    [{ ts: 1.5 }, 'ts'],
    [{ ts: -1 }, 'ts'],
    [{ ts: 1e14 + 1 }, 'ts'],
    [{ ts: 1e300 }, 'ts'],
    [{ ts: 2 ** 53 - 1 }, 'ts'],
    [{ runId: 'x'.repeat(257) }, 'runId'],
    [{ eventId: 'e'.repeat(257) }, 'eventId'],
    [{ toolName: 't'.repeat(257) }, 'toolName'],
    [{ runId: 'a\uD800b' }, 'runId'],
    [{ sessionKey: 7 }, 'sessionKey'],
  ])('refuses %j naming %s', (extra, field) => {
    const r = validateToolEvent(call(extra));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(new RegExp(`^${field}:`));
  });
  it.each([
    [{ toolName: '' }, 'toolName: must not be empty'],
    [{ toolName: 't'.repeat(257) }, 'toolName: must be at most 256 characters (got 257)'],
    [{ runId: 'a\uD800b' }, 'runId: must be well-formed Unicode (it has a lone surrogate)'],
    [{ runId: 5 }, 'runId: must be a string'],
    [{ ts: 1.5 }, 'ts: must be an integer from 0 to 100000000000000'],
    [{ ts: '1' }, 'ts: must be an integer from 0 to 100000000000000'],
  ])('gives %j the reason of the first check it fails, parsed or only validated', (extra, reason) => {
    expect(validateToolEvent(call(extra))).toEqual({ ok: false, reason });
    expect(parseToolEvent(call(extra))).toEqual({ ok: false, reason });
  });
  it.each([[{ ts: 0 }], [{ ts: 1e14 }], [{ runId: 'x'.repeat(256) }]])('accepts %j at the limit', (extra) => {
    expect(validateToolEvent(call(extra)).ok).toBe(true);
  });
  it('refuses arguments nested deeper than it hashes, naming the field', () => {
    let deep: unknown = {};
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const r = parseToolEvent(call({ args: deep }));
    expect(r).toMatchObject({ ok: false, reason: expect.stringMatching(/^args: nests deeper than/) });
    const o = parseToolEvent({ type: 'tool_outcome', ts: T0, runId: 'r', toolName: 'exec', args: {}, result: deep });
    expect(o).toMatchObject({ ok: false, reason: expect.stringMatching(/^result: nests deeper than/) });
  });
  it('hashes arguments and results nested exactly 512 levels deep and refuses 513', () => {
    const levels = (n: number): unknown => {
      let v: unknown = [];
      for (let i = 1; i < n; i++) v = [v];
      return v;
    };
    expect(parseToolEvent(call({ args: levels(512) })).ok).toBe(true);
    expect(parseToolEvent(call({ args: levels(513) }))).toMatchObject({ ok: false, reason: expect.stringMatching(/^args: nests deeper than 512 levels/) });
    const outcome = (result: unknown) => parseToolEvent({ type: 'tool_outcome', ts: T0, runId: 'r', toolName: 'exec', args: {}, result });
    expect(outcome(levels(512)).ok).toBe(true);
    expect(outcome(levels(513))).toMatchObject({ ok: false, reason: expect.stringMatching(/^result: nests deeper than 512 levels/) });
  });
  it('counts an outbound send’s result levels like any other tool’s: 512 hashed, 513 refused', () => {
    // `details` one level under the result; `objects(n)` nests n objects, `leaf` in the innermost.
    const objects = (n: number, leaf?: string): unknown => {
      let v: unknown = leaf === undefined ? {} : { a: leaf };
      for (let i = 1; i < n; i++) v = { a: v };
      return v;
    };
    const outcome = (toolName: string, args: object, details: unknown) => parseToolEvent({ type: 'tool_outcome', ts: T0, runId: 'r', toolName, args, result: { details } });
    for (const [toolName, args] of [
      ['message', { action: 'send', to: 'x' }],
      ['read', {}],
    ] as const) {
      expect(outcome(toolName, args, objects(511)).ok, toolName).toBe(true);
      expect(outcome(toolName, args, objects(511, 'x')).ok, toolName).toBe(true);
      expect(outcome(toolName, args, objects(512)), toolName).toMatchObject({ ok: false, reason: expect.stringMatching(/^result: nests deeper than 512 levels/) });
    }
  });
  it('reads only declared own fields, never the prototype chain', () => {
    const hostile = JSON.parse(
      '{"type":"bot_message","ts":1,"channel":"c","accountId":"a","conversationId":"x","senderId":"s","receiverId":"r","__proto__":{"eventId":"injected"}}',
    );
    const r = parseBotMessage(hostile);
    expect(r.ok && Object.keys(r.value)).toEqual(['type', 'ts', 'channel', 'accountId', 'conversationId', 'senderId', 'receiverId']);
  });
});

describe('bot-loop bounds and the revised conversation budget', () => {
  const msg = (ts: number, from: string, to: string, extra: Partial<BotMessage> = {}): BotMessage => ({
    type: 'bot_message',
    ts,
    channel: 'slack',
    accountId: 'T',
    conversationId: 'C',
    senderId: from,
    receiverId: to,
    ...extra,
  });
  it('judges an event inside its pair cooldown by the conversation budget, which reports the later cooldownUntil', () => {
    const p = botLoopProcess({ defaults: { maxEventsPerWindow: 2, cooldownSeconds: 60, maxConversationBotEvents: 5 }, channels: {} });
    // A–B trips its pair budget at T0+2 (cooldown to T0+60_002); C brings B's burst to the limit.
    // The next A→B, inside the pair cooldown, exceeds it with two busy senders and trips it.
    const history = [msg(T0, 'A', 'B'), msg(T0 + 1, 'A', 'B'), msg(T0 + 2, 'A', 'B'), msg(T0 + 3, 'C', 'B'), msg(T0 + 4, 'C', 'B')];
    given(p, history)
      .when(msg(T0 + 10, 'A', 'B'))
      .then((ds) => {
        expect(ds).toMatchObject([{ decision: 'suppress', reason: 'conversation_budget', cooldownUntil: T0 + 10 + 60_000 }]);
      });
  });
  it(`keeps at most ${MAX_PAIRS} pairs per conversation, dropping the pair whose newest event is oldest`, () => {
    const p = botLoopProcess({ defaults: {}, channels: {} });
    const events = Array.from({ length: MAX_PAIRS + 1 }, (_, i) => msg(T0 + i, `S${i}`, 'R'));
    const s = fold(p, p.initialState, events).state;
    expect(s.pairs.size).toBe(MAX_PAIRS);
    expect(s.pairs.has('R\u0000S0')).toBe(false);
    expect(s.pairs.has(`R\u0000S${MAX_PAIRS}`)).toBe(true);
    const before = fold(p, p.initialState, events.slice(0, MAX_PAIRS)).state;
    expect(p.drops(before, events.at(-1)!, p.decide(before, events.at(-1)!))).toEqual(['pair']);
  });
  it(`keeps the ${MAX_RECEIVER_EVENTS} newest burst events per conversation key: ${MAX_RECEIVER_EVENTS} are all kept, one more drops the oldest`, () => {
    const p = botLoopProcess({ defaults: { maxConversationBotEvents: 5 }, channels: {} });
    const events = Array.from({ length: MAX_RECEIVER_EVENTS + 1 }, (_, i) => msg(T0 + i, i % 2 ? 'A' : 'B', 'R', { eventId: `e${i}` }));
    const full = fold(p, p.initialState, events.slice(0, MAX_RECEIVER_EVENTS - 1)).state;
    const last = events[MAX_RECEIVER_EVENTS - 1]!;
    expect(p.drops(full, last, p.decide(full, last))).toEqual([]);
    const kept = fold(p, full, [last]).state;
    expect(kept.receivers.get('R')!.events).toHaveLength(MAX_RECEIVER_EVENTS);
    const next = events.at(-1)!;
    expect(p.drops(kept, next, p.decide(kept, next))).toEqual(['burst_event']);
    const after = fold(p, kept, [next]).state.receivers.get('R')!.events;
    expect(after).toHaveLength(MAX_RECEIVER_EVENTS);
    expect(after[0]).toEqual([T0 + 1, 'A']);
  });
  it('keeps, among burst events with equal ts, the one that came later', () => {
    const p = botLoopProcess({ defaults: { maxConversationBotEvents: 5 }, channels: {} });
    const same = Array.from({ length: MAX_RECEIVER_EVENTS }, (_, i) => msg(T0, i % 2 ? 'A' : 'B', 'R', { eventId: `e${i}` }));
    const s = fold(p, p.initialState, [...same, msg(T0, 'Z', 'R', { eventId: 'z' })]).state;
    const kept = s.receivers.get('R')!.events;
    expect(kept.at(-1)).toEqual([T0, 'Z']);
    // The first to come (from B) is the one dropped.
    expect(kept.filter(([, from]) => from === 'B')).toHaveLength(Math.ceil(MAX_RECEIVER_EVENTS / 2) - 1);
  });
  it(`keeps at most ${MAX_PAIRS} conversation-budget keys (receivers) per conversation, counting the drop`, () => {
    const p = botLoopProcess({ defaults: { maxConversationBotEvents: 5 }, channels: {} });
    const events = Array.from({ length: MAX_PAIRS + 1 }, (_, i) => msg(T0 + i, 'S', `R${i}`));
    const full = fold(p, p.initialState, events.slice(0, MAX_PAIRS - 1)).state;
    const last = events[MAX_PAIRS - 1]!;
    expect(p.drops(full, last, p.decide(full, last))).not.toContain('receiver');
    const kept = fold(p, full, [last]).state;
    expect(kept.receivers.size).toBe(MAX_PAIRS);
    const next = events.at(-1)!;
    expect(p.drops(kept, next, p.decide(kept, next))).toContain('receiver');
    const after = fold(p, kept, [next]).state;
    expect(after.receivers.size).toBe(MAX_PAIRS);
    expect(after.receivers.has('R0')).toBe(false);
    expect(after.receivers.has(`R${MAX_PAIRS}`)).toBe(true);
  });
  it(`remembers ${MAX_SEEN_IDS} eventIds per pair: ${MAX_SEEN_IDS} are all kept, one more drops the oldest, counting the drop`, () => {
    const p = botLoopProcess({ defaults: {}, channels: {} });
    const events = Array.from({ length: MAX_SEEN_IDS + 1 }, (_, i) => msg(T0 + i, 'A', 'B', { eventId: `e${i}` }));
    const full = fold(p, p.initialState, events.slice(0, MAX_SEEN_IDS - 1)).state;
    const last = events[MAX_SEEN_IDS - 1]!;
    expect(p.drops(full, last, p.decide(full, last))).toEqual([]);
    const kept = fold(p, full, [last]).state;
    expect([...kept.pairs.values()][0]!.seen).toHaveLength(MAX_SEEN_IDS);
    const next = events.at(-1)!;
    expect(p.drops(kept, next, p.decide(kept, next))).toEqual(['pair_event_id']);
    const seen = [...fold(p, kept, [next]).state.pairs.values()][0]!.seen;
    expect(seen.map(([id]) => id)).toEqual(events.slice(1).map((e) => e.eventId));
  });
  it('keeps, among remembered eventIds with equal ts, the one that came later', () => {
    const p = botLoopProcess({ defaults: {}, channels: {} });
    const same = Array.from({ length: MAX_SEEN_IDS + 1 }, (_, i) => msg(T0, 'A', 'B', { eventId: `e${i}` }));
    const seen = [...fold(p, p.initialState, same).state.pairs.values()][0]!.seen;
    expect(seen.map(([id]) => id)).toEqual(same.slice(1).map((e) => e.eventId));
  });
  it('takes channel and bot ids as plain names (constructor, __proto__, toString)', () => {
    const p = botLoopProcess({ defaults: { maxEventsPerWindow: 1 }, channels: {} });
    const m = (ts: number) => ({ ...msg(ts, '__proto__', 'toString'), channel: 'constructor' });
    const ds = given(p).whenAll([m(T0), m(T0 + 1)]) as readonly BotDecision[];
    expect(ds.map((d) => d.decision)).toEqual(['deliver', 'suppress']);
  });
});
