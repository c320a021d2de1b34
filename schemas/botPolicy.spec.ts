// The changelog and wire fields of the bot policy (docs/behaviour.md §4.5–§4.8): a conversation
// restores exactly with its evidence, slow-loop state and human messages, and a changelog value
// written before them still restores.
import fc from 'fast-check';
import type avro from 'avsc';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ConversationState } from '../processors/botLoop/state.js';
import { fold } from '../processors/kernel/process.js';
import { buildTopology } from '../topology/build.js';
import { configFrom } from '../topology/config.js';
import { botLoopStateCodec, decisionCodec, type ValueCodec } from './codecs.js';

const roundTrip = <T>(codec: ValueCodec<T>, value: T): T => codec.fromAvro(codec.type.fromBuffer(codec.type.toBuffer(codec.toAvro(value))));
const avsc = createRequire(import.meta.url)('avsc') as typeof avro;
const T0 = 1e12;

const config = configFrom({
  channels: { defaults: { botLoopProtection: { maxEventsPerWindow: 3, windowSeconds: 10, cooldownSeconds: 5, maxConversationBotEvents: 4 } } },
  loopguard: { botPolicy: { mode: 'shadow', slowLoop: { maxBotMessages: 5, horizonSeconds: 30 }, humanReset: true, hopLimit: { maxOutgoing: 2 } } },
});
const bot = buildTopology(config).nodes[1]!;
const parsed = (raw: unknown[]) =>
  raw
    .map((e) => bot.parse(e))
    .map((p) => (p.ok ? p.value : null))
    .filter((e) => e !== null);

const event = fc.record({
  human: fc.boolean(),
  senderId: fc.constantFrom('A', 'B', 'C'),
  receiverId: fc.constantFrom('A', 'B'),
  gap: fc.integer({ min: -5000, max: 12_000 }),
  eventId: fc.option(fc.constantFrom('m1', 'm2', 'm3', 'h1', 'h2'), { nil: undefined }),
  hopLimit: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
});

type RawEvent = typeof event extends fc.Arbitrary<infer R> ? R : never;

function stream(raw: readonly RawEvent[]) {
  let ts = T0;
  return parsed(
    raw.map((e) => {
      ts += e.gap;
      const base = { ts, channel: 'slack', accountId: 'T', conversationId: 'C', senderId: e.senderId, eventId: e.eventId };
      return e.human ? { type: 'human_message', ...base } : { type: 'bot_message', ...base, receiverId: e.receiverId, hopLimit: e.hopLimit };
    }),
  );
}

describe('bot policy in the changelog', () => {
  it('restores a conversation exactly, evidence, slow loop and human messages included (split fold through Avro)', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 80 }), fc.nat(), (raw, at) => {
        const events = stream(raw);
        const cut = at % (events.length + 1);
        const whole = fold(bot.process, bot.process.initialState, events);
        const head = fold(bot.process, bot.process.initialState, events.slice(0, cut));
        const restored = roundTrip(botLoopStateCodec, { offset: cut, state: head.state as ConversationState }).state;
        expect(restored).toEqual(head.state);
        expect([...head.decisions, ...fold(bot.process, restored, events.slice(cut)).decisions]).toEqual(whole.decisions);
      }),
    );
  });
  it('carries shadow, evidence and replyHopLimit on bot decisions unchanged', () => {
    const events = stream(
      Array.from({ length: 12 }, (_, i) => ({ human: i === 8, senderId: i % 2 ? 'A' : 'C', receiverId: 'B', gap: 100, eventId: undefined, hopLimit: i === 10 ? 1 : undefined })),
    );
    const ds = fold(bot.process, bot.process.initialState, events).decisions as ReadonlyArray<Record<string, unknown>>;
    const reasons = new Set<unknown>();
    for (const d of ds) {
      const published = { ...d, id: 'x', source: { topic: 't', partition: 0, offset: 1 } };
      expect(roundTrip(decisionCodec, published as never)).toEqual(published);
      reasons.add(d.reason);
    }
    expect(reasons).toEqual(new Set([null, 'conversation_budget', 'slow_loop', 'hop_limit']));
    expect(ds.every((d) => d.shadow === true && typeof d.replyHopLimit === 'number')).toBe(true);
  });
  it('still reads a value written with the previous bot-loop-state schema, and goes on from it', () => {
    const v1 = avsc.Type.forSchema(JSON.parse(readFileSync('schemas/history/bot-loop-state.v1.avsc', 'utf8')) as avro.Schema);
    const old = {
      offset: 17,
      state: {
        pairList: [{ pairId: 'A\u0000B', timestamps: [T0 + 1], cooldown: { start: T0, until: T0 + 5000 }, seen: [{ id: 'm1', ts: T0 }], streamTime: T0 + 1 }],
        receiverList: [{ receiverId: 'B', events: [{ ts: T0, senderId: 'A' }], cooldown: null }],
      },
    };
    const entry = botLoopStateCodec.fromAvro(botLoopStateCodec.type.fromBuffer(v1.toBuffer(old), botLoopStateCodec.type.createResolver(v1)));
    const s = entry.state;
    expect(entry.offset).toBe(17);
    expect(s.slow).toBeNull();
    expect(s.pairs.get('A\u0000B')).toEqual({ timestamps: [T0 + 1], cooldown: { start: T0, until: T0 + 5000, evidence: null }, seen: [['m1', T0]], streamTime: T0 + 1 });
    expect(s.receivers.get('B')).toEqual({ events: [[T0, 'A']], cooldown: null });
    const m = { type: 'bot_message', channel: 'slack', accountId: 'T', conversationId: 'C', senderId: 'A', receiverId: 'B' };
    const next = fold(
      bot.process,
      s,
      parsed([
        { ...m, ts: T0 + 2, eventId: 'm1' },
        { ...m, ts: T0 + 3 },
        { ...m, type: 'human_message', ts: T0 + 4 },
        { ...m, ts: T0 + 5 },
      ]),
    );
    expect(next.decisions).toMatchObject([
      { decision: 'suppress', reason: 'pair_budget', cooldownUntil: T0 + 5000, evidence: null, shadow: true },
      { decision: 'suppress', reason: 'pair_budget', cooldownUntil: T0 + 5000, evidence: null },
      { decision: 'deliver', replyHopLimit: 2 },
    ]);
  });
});
