import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import type avro from 'avsc';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { fold } from '../processors/kernel/process.js';
import { buildTopology } from '../topology/build.js';
import { configFrom } from '../topology/config.js';
import { InMemoryDriver } from '../topology/testing/driver.js';
import { botLoopStateCodec, channelEventCodec, decisionCodec, toolEventCodec, toolLoopStateCodec, type ValueCodec } from './codecs.js';
import { avroSchemaOf, CHANNEL_EVENT_CONTRACT, DECISION_CONTRACT, TOOL_EVENT_CONTRACT } from './contract.js';
import { DERIVED_SCHEMAS, schemaText } from './write.js';

const roundTrip = <T>(codec: ValueCodec<T>, value: T): T => codec.fromAvro(codec.type.fromBuffer(codec.type.toBuffer(codec.toAvro(value))));

const avsc = createRequire(import.meta.url)('avsc') as typeof avro;

const json = fc.jsonValue().filter((v) => v !== null);

describe('event codecs', () => {
  it('carry any tool outcome from its JSON form to Avro and back unchanged', () => {
    const event = fc.record(
      {
        type: fc.constant('tool_outcome'),
        ts: fc.integer({ min: 0, max: 2 ** 50 }),
        runId: fc.string(),
        toolName: fc.string({ minLength: 1 }),
        args: json,
        result: json,
        eventId: fc.option(fc.string(), { nil: undefined }),
        error: fc.option(fc.oneof(fc.string(), fc.record({ name: fc.string(), message: fc.string() })), { nil: undefined }),
      },
      { requiredKeys: ['type', 'ts', 'runId', 'toolName', 'args'] },
    );
    fc.assert(
      fc.property(event, (e) => {
        expect(roundTrip(toolEventCodec, e as Record<string, unknown>)).toEqual(JSON.parse(JSON.stringify(e)));
      }),
    );
  });
  it('carry only the fields a type declares', () => {
    const call = { type: 'tool_call', ts: 1, runId: 'r', toolName: 'read', args: { a: 1 }, result: 'not a call field', error: 'nor this' };
    expect(roundTrip(toolEventCodec, call)).toEqual({ type: 'tool_call', ts: 1, runId: 'r', toolName: 'read', args: { a: 1 } });
  });
  it('carry bot messages and decisions unchanged', () => {
    const m = { type: 'bot_message', ts: 5, channel: 'slack', accountId: 'T', conversationId: 'C', senderId: 'A', receiverId: 'B', eventId: 'x' };
    expect(roundTrip(channelEventCodec, m)).toEqual(m);
    const driver = new InMemoryDriver(buildTopology(configFrom({ tools: { loopDetection: { enabled: true } } })), 2);
    const decisions: Record<string, unknown>[] = [];
    for (let i = 0; i < 25; i++) {
      const r = driver.pipe({ type: 'tool_call', ts: i, runId: 'r', toolName: 'read', args: { p: 1 } });
      driver.pipe({ type: 'tool_outcome', ts: i, runId: 'r', toolName: 'read', args: { p: 1 }, result: 'same' });
      if (!r.ok) throw new Error(`call ${i} was not decided`);
      decisions.push(...(r.decisions as unknown as Record<string, unknown>[]));
    }
    // Allows, warns and blocks (with evidence) all cross the wire.
    expect(decisions.map((d) => d.decision)).toEqual([...Array(10).fill('allow'), ...Array(10).fill('warn'), ...Array(5).fill('block')]);
    for (const d of decisions) expect(roundTrip(decisionCodec, d)).toEqual(d);
  });
  it('carry a human_message and a hop-limited bot message unchanged, and give readers of the first schema a bot_message they know', () => {
    const human = { type: 'human_message', ts: 7, channel: 'slack', accountId: 'T', conversationId: 'C', senderId: 'U1', eventId: 'h' };
    expect(roundTrip(channelEventCodec, human)).toEqual(human);
    const hop = { type: 'bot_message', ts: 5, channel: 'matrix', accountId: '@a', conversationId: '!r', senderId: '@b', receiverId: '@a', hopLimit: 0 };
    expect(roundTrip(channelEventCodec, hop)).toEqual(hop);
    const v1 = avsc.Type.forSchema(JSON.parse(readFileSync('schemas/history/channel-event.v1.avsc', 'utf8')) as avro.Schema);
    const bytes = channelEventCodec.type.toBuffer(channelEventCodec.toAvro(human));
    const asOld = v1.fromBuffer(bytes, v1.createResolver(channelEventCodec.type)) as Record<string, unknown>;
    expect({ ...asOld }).toEqual({ type: 'bot_message', ts: 7, eventId: 'h', channel: 'slack', accountId: 'T', conversationId: 'C', senderId: 'U1', receiverId: '' });
  });
  it('reject a value of the wrong shape when encoding', () => {
    expect(() => channelEventCodec.type.toBuffer(channelEventCodec.toAvro({ type: 'bot_message', ts: 'x' }))).toThrow();
  });
});

describe('state codecs', () => {
  const cfg = configFrom({
    tools: { loopDetection: { enabled: true, warningThreshold: 2, criticalThreshold: 3, historySize: 6 } },
    channels: { defaults: { botLoopProtection: { maxEventsPerWindow: 2, maxConversationBotEvents: 3 } } },
  });
  const [tool, bot] = buildTopology(cfg).nodes;

  it('restore a tool-loop run from its changelog value exactly (split-fold through Avro)', () => {
    const ev = fc.record({
      type: fc.constantFrom('tool_call', 'tool_outcome', 'compaction'),
      toolName: fc.constantFrom('read', 'exec'),
      args: fc.constantFrom({ a: 1 }, { a: 2 }),
      result: fc.constantFrom('x', 'y'),
      eventId: fc.option(fc.constantFrom('e1', 'e2', 'e3'), { nil: undefined }),
      toolCallId: fc.option(fc.constantFrom('c1', 'c2'), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(ev, { maxLength: 60 }), fc.nat(), (raw, at) => {
        const events = raw
          .map((e, i) => tool!.parse({ ...e, ts: i * 1000, runId: 'r' }))
          .map((p) => (p.ok ? p.value : null))
          .filter((e) => e !== null);
        const cut = at % (events.length + 1);
        const whole = fold(tool!.process, tool!.process.initialState, events);
        const head = fold(tool!.process, tool!.process.initialState, events.slice(0, cut));
        const restored = roundTrip(toolLoopStateCodec, { offset: cut, state: head.state }).state;
        const tail = fold(tool!.process, restored, events.slice(cut));
        expect([...head.decisions, ...tail.decisions]).toEqual(whole.decisions);
      }),
    );
  });
  it('restore a bot-loop conversation from its changelog value exactly', () => {
    const ev = fc.record({
      senderId: fc.constantFrom('A', 'B', 'C'),
      receiverId: fc.constantFrom('A', 'B'),
      gap: fc.integer({ min: -5000, max: 30000 }),
      eventId: fc.option(fc.constantFrom('m1', 'm2', 'm3'), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(ev, { maxLength: 60 }), fc.nat(), (raw, at) => {
        let ts = 1e12;
        const events = raw
          .map((e) =>
            bot!.parse({
              type: 'bot_message',
              ts: (ts += e.gap),
              channel: 'slack',
              accountId: 'T',
              conversationId: 'C',
              senderId: e.senderId,
              receiverId: e.receiverId,
              eventId: e.eventId,
            }),
          )
          .map((p) => (p.ok ? p.value : null))
          .filter((e) => e !== null);
        const cut = at % (events.length + 1);
        const whole = fold(bot!.process, bot!.process.initialState, events);
        const head = fold(bot!.process, bot!.process.initialState, events.slice(0, cut));
        const restored = roundTrip(botLoopStateCodec, { offset: cut, state: head.state }).state;
        expect([...head.decisions, ...fold(bot!.process, restored, events.slice(cut)).decisions]).toEqual(whole.decisions);
      }),
    );
  });
  it('ships the event and decision schemas the contract derives (run `npm run schemas` after changing a declaration)', () => {
    for (const name of Object.keys(DERIVED_SCHEMAS) as Array<keyof typeof DERIVED_SCHEMAS>) {
      expect(readFileSync(`schemas/${name}.avsc`, 'utf8'), `schemas/${name}.avsc`).toBe(schemaText(name));
    }
  });
  it('gives every declared field of every type a place in its topic schema', () => {
    for (const contract of [TOOL_EVENT_CONTRACT, CHANNEL_EVENT_CONTRACT, DECISION_CONTRACT]) {
      const names = new Set(avroSchemaOf(contract).fields.map((f) => f.name));
      for (const decl of contract.decls) for (const field of Object.keys(decl.fields)) expect(names.has(field), `${decl.type}.${field}`).toBe(true);
    }
  });
});
