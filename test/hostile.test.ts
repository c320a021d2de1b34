// Hostile input on the real broker: records that once stopped a processor for good are
// produced raw between good events. The processor keeps running, each bad record lands in the
// dead-letter topic with its reason, every good event is decided exactly as `replay` decides
// it, and a restart neither crashes again nor forgets what it had folded.
import { describe, expect, it } from 'vitest';
import { toolEventCodec, channelEventCodec, type ValueCodec } from '../schemas/codecs.js';
import { COMPATIBILITY } from '../schemas/registry.js';
import { buildTopology } from '../topology/build.js';
import { partitionFor } from '../topology/partitioner.js';
import { route } from '../topology/topology.js';
import { DEAD_LETTER_HEADERS } from '../topology/runtime/deadLetter.js';
import type { OutRecord } from '../topology/runtime/port.js';
import { collectDecisions, lg, lgOk, ready, replayOf, session, waitFor, world, writeEvents, type World } from './helpers/harness.js';

const T0 = Date.now() - 3_600_000;

/** The good events: valid, every one with an eventId (ids then do not depend on offsets). */
function goodEvents(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let ts = T0;
  for (let i = 0; i < 14; i++) {
    out.push({ type: 'tool_call', ts: (ts += 10), runId: 'run-stuck', toolName: 'read', args: { path: '/same' }, toolCallId: `c${i}`, eventId: `call-${i}` });
    out.push({ type: 'tool_outcome', ts: (ts += 10), runId: 'run-stuck', toolName: 'read', args: { path: '/same' }, toolCallId: `c${i}`, result: 'same', eventId: `out-${i}` });
  }
  // Prototype names are plain names: decided like any other.
  for (const channel of ['constructor', '__proto__', 'toString']) {
    for (let k = 0; k < 3; k++)
      out.push({ type: 'bot_message', ts: (ts += 5), channel, accountId: 'hasOwnProperty', conversationId: 'valueOf', senderId: 'A', receiverId: 'B', eventId: `${channel}-${k}` });
  }
  out.push({ type: 'tool_call', ts: (ts += 10), runId: '__proto__', sessionKey: 'constructor', toolName: 'toString', args: { a: 1 }, eventId: '__proto__' });
  // An eventId says nothing across types: this call is decided although an outcome had its id.
  out.push({ type: 'tool_outcome', ts: (ts += 10), runId: 'run-ids', toolName: 'read', args: {}, result: 'x', eventId: 'e1' });
  out.push({ type: 'tool_call', ts: ts + 10, runId: 'run-ids', toolName: 'read', args: {}, eventId: 'e1' });
  return out;
}

/** A codec that writes the Avro record as given, as a foreign producer might. */
const verbatim = (codec: ValueCodec<Record<string, unknown>>): ValueCodec<Record<string, unknown>> => ({
  ...codec,
  toAvro: (r) => r,
  get type() {
    return codec.type;
  },
});

function badRecords(
  w: World,
): Array<{ record: Omit<OutRecord, 'value'>; value: Record<string, unknown>; codec: ValueCodec<Record<string, unknown>>; reason: string; why: RegExp }> {
  const parts = w.config.settings.topics.partitions;
  const tool = (runId: string) => ({ topic: w.config.topics.toolEvents, partition: partitionFor(runId, parts), key: runId });
  const bot = { topic: w.config.topics.channelEvents, partition: partitionFor(JSON.stringify(['slack', 'T', 'C']), parts), key: 'storm' };
  const nulls = Object.fromEntries((toolEventCodec.schema as { fields: Array<{ name: string }> }).fields.map((f) => [f.name, null]));
  const deep = '['.repeat(10_000) + ']'.repeat(10_000);
  return [
    {
      record: tool('run-deep'),
      codec: verbatim(toolEventCodec),
      value: { ...nulls, type: 'tool_call', ts: T0, runId: 'run-deep', toolName: 'read', args: deep },
      reason: 'invalid_event',
      why: /^args: nests deeper than/,
    },
    ...Array.from({ length: 3 }, (_, i) => ({
      record: bot,
      codec: channelEventCodec,
      reason: 'invalid_event',
      why: /^ts: must be an integer from 0 to/,
      value: { type: 'bot_message', ts: 9_007_199_254_740_000 + i, channel: 'slack', accountId: 'T', conversationId: 'C', senderId: 'A', receiverId: 'B' },
    })),
    {
      record: tool('run-long-ids'),
      codec: toolEventCodec,
      value: { type: 'tool_call', ts: T0, runId: 'run-long-ids', toolName: 'read', args: {}, eventId: 'x'.repeat(1000) },
      reason: 'invalid_event',
      why: /^eventId: must be at most 256 characters/,
    },
    {
      record: tool('run-future'),
      codec: toolEventCodec,
      value: { type: 'tool_call', ts: Date.now() + 3_600_000, runId: 'run-future', toolName: 'read', args: {} },
      reason: 'future_timestamp',
      why: /ahead of this host's clock/,
    },
  ];
}

describe('hostile input on the real broker', () => {
  it('dead-letters what it cannot fold, decides the rest as replay does, and survives a restart', async () => {
    const w = world('hostile');
    const good = goodEvents();
    const file = writeEvents(w.name, good);
    const expected = await replayOf(w, file);
    expect(expected.size).toBeGreaterThan(20);

    await lgOk(['topics', 'create', '--config', w.configFile]);
    const { kafka, catalog } = session(w);
    await catalog.register(w.config.topics.toolEvents, toolEventCodec, COMPATIBILITY.FULL_TRANSITIVE);
    await catalog.register(w.config.topics.channelEvents, channelEventCodec, COMPATIBILITY.FULL_TRANSITIVE);
    const topology = buildTopology(w.config);
    const goodRecords = good.map((e) => {
      const r = route(topology, e);
      if (!r.ok) throw new Error(r.reason);
      const topic = r.node.inputTopic;
      return {
        topic,
        partition: partitionFor(r.node.process.keyOf(r.event), w.config.settings.topics.partitions),
        key: r.node.messageKeyOf(r.event),
        value: catalog.encode(topic, r.node.codecs.input, e),
      };
    });
    const bad = badRecords(w);
    const badEncoded = bad.map((b) => ({ ...b.record, value: catalog.encode(b.record.topic, b.codec, b.value) }));
    // bad records between the good ones, in one stream per topic
    const half = Math.floor(goodRecords.length / 2);
    const sender = await kafka.producer();
    await sender.send([...goodRecords.slice(0, half), ...badEncoded, ...goodRecords.slice(half)]);

    const run = lg(['run', '--config', w.configFile]);
    await ready(run);
    const decisions = await collectDecisions(w);
    const dead: Array<Readonly<Record<string, string>>> = [];
    const reader = kafka.groupConsumer(`${w.name}-dlq`, { topics: [w.config.topics.deadLetter], fromBeginning: true });
    await reader.run({
      onBatch: async (b) => {
        for (const r of b.records) dead.push(r.headers);
        return b.records.at(-1)?.offset;
      },
    });
    await waitFor(`${expected.size} decisions and ${bad.length} dead letters`, () => decisions.byId.size >= expected.size && dead.length >= bad.length);

    expect(new Set(decisions.byId.keys())).toEqual(new Set(expected.keys()));
    // Source offsets differ (the bad records take offsets too); everything else is the replay's.
    const withoutOffset = (d: Record<string, unknown> | undefined) => d && { ...d, source: { ...(d.source as object), offset: undefined } };
    for (const [id, d] of expected) expect(withoutOffset(decisions.byId.get(id)), id).toEqual(withoutOffset(d));
    const reasons = dead.map((h) => h[DEAD_LETTER_HEADERS.reason]).sort();
    expect(reasons).toEqual(bad.map((b) => b.reason).sort());
    for (const b of bad)
      expect(
        dead.some((h) => h[DEAD_LETTER_HEADERS.reason] === b.reason && b.why.test(h[DEAD_LETTER_HEADERS.error] ?? '')),
        String(b.why),
      ).toBe(true);

    // A hard stop, then a restart: no crash loop, and the folded state (ids included) is back.
    run.child.kill('SIGKILL');
    await run.exited();
    const again = lg(['run', '--config', w.configFile]);
    await ready(again);
    const redelivered = good.filter((e) => e.eventId === '__proto__' || e.eventId === 'call-13');
    await sender.send(redelivered.map((e) => goodRecords[good.indexOf(e)]!));
    await waitFor(
      'the redelivered calls answered again',
      () => decisions.duplicates.filter((d) => ['__proto__', 'call-13'].some((id) => String(d.first.id).endsWith(`/${id}/tool_decision`))).length >= 2,
    );
    for (const { first, again: repeat } of decisions.duplicates) expect(withoutOffset(repeat)).toEqual(withoutOffset(first));
    expect(again.child.exitCode).toBeNull();
    await sender.close();
  });
});
