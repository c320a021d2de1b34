// The wire contract against the real schema registry, and bad input against the real broker.
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { loadSchema, toolEventCodec, type ValueCodec } from '../schemas/codecs.js';
import { COMPATIBILITY } from '../schemas/registry.js';
import { DEAD_LETTER_HEADERS } from '../topology/runtime/deadLetter.js';
import { collectDecisions, lg, lgOk, session, waitFor, world } from './helpers/harness.js';

/** The tool-event schema plus one optional field: the next version a producer might ship. */
function nextVersion(): ValueCodec<Record<string, unknown>> {
  const schema = loadSchema('tool-event') as { fields: object[] };
  const v2 = { ...schema, fields: [...schema.fields, { name: 'traceId', type: ['null', 'string'], default: null }] };
  return {
    ...toolEventCodec,
    schema: v2 as avro.Schema,
    type: avro.Type.forSchema(v2 as avro.Schema),
    toAvro: (e) => ({ ...(toolEventCodec.toAvro(e) as object), traceId: e.traceId ?? null }),
    // the next version declares the field, so its reader keeps it
    fromAvro: (r) => {
      const traceId = (r as { traceId?: string | null }).traceId;
      return { ...toolEventCodec.fromAvro(r), ...(typeof traceId === 'string' ? { traceId } : {}) };
    },
  };
}

describe('schema evolution', () => {
  it('keeps a new optional field readable both ways, and the registry refuses a breaking change', async () => {
    const w = world('evolution');
    const { catalog } = session(w);
    const topic = w.config.topics.toolEvents;
    const event = { type: 'tool_call', ts: 1, runId: 'r', toolName: 'read', args: { path: '/a' } };

    await catalog.register(topic, toolEventCodec, COMPATIBILITY.FULL_TRANSITIVE);
    const v1Bytes = catalog.encode(topic, toolEventCodec, event);
    const v2 = nextVersion();
    await catalog.register(topic, v2, COMPATIBILITY.FULL_TRANSITIVE);
    const v2Bytes = catalog.encode(topic, v2, { ...event, traceId: 't-1' });
    expect(v2Bytes.readUInt32BE(1)).not.toBe(v1Bytes.readUInt32BE(1));

    // an old reader reads new data (the new field is dropped) and a new reader reads old data
    expect(await catalog.decode(v2Bytes, toolEventCodec)).toEqual(event);
    expect(await catalog.decode(v1Bytes, v2)).toEqual(event);
    expect(await catalog.decode(v2Bytes, v2)).toEqual({ ...event, traceId: 't-1' });

    const schema = loadSchema('tool-event') as { fields: object[] };
    const breaking = { ...schema, fields: [...schema.fields, { name: 'tenant', type: 'string' }] };
    const codec = { ...toolEventCodec, schema: breaking as avro.Schema, type: avro.Type.forSchema(breaking as avro.Schema) };
    await expect(catalog.register(topic, codec, COMPATIBILITY.FULL_TRANSITIVE)).rejects.toThrow();
  });
});

describe('bad input', () => {
  it('sends each kind of bad record to the dead-letter topic with its reason and decides the good ones around it', async () => {
    const w = world('deadletter');
    await lgOk(['topics', 'create', '--config', w.configFile]);
    const { kafka, catalog } = session(w);
    await catalog.register(w.config.topics.toolEvents, toolEventCodec, COMPATIBILITY.FULL_TRANSITIVE);
    const topic = w.config.topics.toolEvents;
    const good = (i: number) => catalog.encode(topic, toolEventCodec, { type: 'tool_call', ts: i, runId: 'r', toolName: 'read', args: { i } });
    const unknownId = Buffer.concat([Buffer.from([0, 0x7f, 0xff, 0xff, 0xf0]), Buffer.from('x')]);
    const notAvro = Buffer.concat([good(0).subarray(0, 5), Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff])]);
    const breaksContract = catalog.encode(topic, toolEventCodec, { type: 'tool_call', ts: 3, runId: 'r', toolName: 'read' });
    const oversized = catalog.encode(topic, toolEventCodec, { type: 'tool_call', ts: 4, runId: 'r', toolName: 'read', args: { blob: 'x'.repeat(4096) } });
    const values = [good(1), Buffer.from('{"type":"tool_call"}'), good(2), unknownId, notAvro, breaksContract, oversized, good(5)];
    const sender = await kafka.producer();
    await sender.send(values.map((value) => ({ topic, partition: 0, key: 'r', value })));

    const run = lg(['run', '--config', w.configFile, '--max-event-bytes', '2048']);
    const decisions = await collectDecisions(w);
    const dead: Array<{ headers: Readonly<Record<string, string>>; offset: number }> = [];
    const reader = kafka.groupConsumer(`${w.name}-dlq`, { topics: [w.config.topics.deadLetter], fromBeginning: true });
    await reader.run({
      onBatch: async (b) => {
        for (const r of b.records) dead.push({ headers: r.headers, offset: r.offset });
        return b.records.at(-1)?.offset;
      },
    });
    await waitFor('3 decisions and 5 dead letters', () => decisions.byId.size >= 3 && dead.length >= 5);

    expect([...decisions.byId.values()].map((d) => d.ts).sort()).toEqual([1, 2, 5]);
    const reasons = Object.fromEntries(dead.map((d) => [d.headers[DEAD_LETTER_HEADERS.offset], d.headers[DEAD_LETTER_HEADERS.reason]]));
    expect(reasons).toEqual({ 1: 'bad_magic_byte', 3: 'unknown_schema_id', 4: 'avro_decode_failed', 5: 'invalid_event', 6: 'oversized' });
    for (const d of dead) {
      expect(d.headers[DEAD_LETTER_HEADERS.topic]).toBe(topic);
      expect(d.headers[DEAD_LETTER_HEADERS.partition]).toBe('0');
      expect(d.headers[DEAD_LETTER_HEADERS.error]).toBeTruthy();
    }
    expect(dead.find((d) => d.headers[DEAD_LETTER_HEADERS.reason] === 'invalid_event')?.headers[DEAD_LETTER_HEADERS.error]).toContain('args or argsHash');
    // Logged once the batch is committed, after its dead letters are readable: awaited, not assumed.
    await waitFor('the dead-letter log line', () => run.output().includes('event sent to the dead-letter topic'));
  });
});
