import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type avro from 'avsc';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toolEventCodec, toolLoopStateCodec, type ValueCodec } from './codecs.js';
import { SchemaCatalog } from './registry.js';
import { avroValue as writable } from './testing/avroValue.js';

const avsc = createRequire(import.meta.url)('avsc') as typeof avro;
const historical = (name: string) => avsc.Type.forSchema(JSON.parse(readFileSync(new URL(`./history/${name}.avsc`, import.meta.url), 'utf8')) as avro.Schema);

/** A catalog whose registry knows `writers` by id. */
function catalog(writers: Map<number, avro.Type>): SchemaCatalog {
  return new SchemaCatalog({ getSchema: async (id: number) => writers.get(id) } as never);
}

/** What decoding did before it read in place: avsc on a view of the Avro body, its errors as they were. */
function reference<T>(codec: ValueCodec<T>, writer: avro.Type, framed: Buffer): { value: T } | { error: string } {
  let record: unknown;
  try {
    const body = framed.subarray(5);
    record = writer.equals(codec.type) ? codec.type.fromBuffer(body) : codec.type.fromBuffer(body, codec.type.createResolver(writer));
  } catch (e) {
    return { error: `Avro payload does not decode with schema 7: ${(e as Error).message}` };
  }
  try {
    return { value: codec.fromAvro(record) };
  } catch (e) {
    return { error: `decoded record does not map to ${codec.name}: ${(e as Error).message}` };
  }
}

async function decoded<T>(c: SchemaCatalog, codec: ValueCodec<T>, framed: Buffer): Promise<{ value: T } | { error: string }> {
  try {
    return { value: await c.decode(framed, codec) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

const frame = (id: number, body: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, 0, id]), body]);

describe('SchemaCatalog.decode', () => {
  const cases: Array<[string, ValueCodec<never>, avro.Type]> = [
    ['its own schema', toolEventCodec as ValueCodec<never>, toolEventCodec.type],
    ['an older writer schema (resolved)', toolEventCodec as ValueCodec<never>, historical('tool-event.v1')],
    ['a changelog state, older writer', toolLoopStateCodec as ValueCodec<never>, historical('tool-loop-state.v1')],
  ];
  for (const [name, codec, writer] of cases) {
    it(`reads what avsc read from the body, and fails as it failed, cut short or with bytes left over (${name})`, async () => {
      const c = catalog(new Map([[7, writer]]));
      await fc.assert(
        fc.asyncProperty(writable(writer), fc.integer({ min: -40, max: 3 }), async (value, cut) => {
          const body = writer.toBuffer(value);
          // cut < 0: that many bytes short; 0: whole; > 0: that many extra bytes.
          const bytes = cut <= 0 ? body.subarray(0, Math.max(0, body.length + cut)) : Buffer.concat([body, Buffer.alloc(cut, 1)]);
          const framed = frame(7, bytes);
          const expected = reference(codec, writer, framed);
          expect(await decoded(c, codec, framed)).toEqual(expected);
          // Once resolved, the synchronous path gives the same.
          let sync: { value: unknown } | { error: string };
          try {
            sync = { value: c.decodeCached(framed, codec) };
          } catch (e) {
            sync = { error: (e as Error).message };
          }
          expect(sync).toEqual(expected);
        }),
        { numRuns: 300 },
      );
    });
  }
});

describe('SchemaCatalog.register', () => {
  /** A registry client that registers `codec` as id 9 and counts lookups by id. */
  function registering(known: Map<number, avro.Type>) {
    const lookups: number[] = [];
    const registry = {
      api: { Subject: { config: async () => ({ data: () => ({ compatibilityLevel: 'FULL_TRANSITIVE' }) }), updateConfig: async () => undefined } },
      register: async () => ({ id: 9 }),
      getSchema: async (id: number) => {
        lookups.push(id);
        return known.get(id);
      },
    };
    return { catalog: new SchemaCatalog(registry as never), lookups };
  }

  it('decodes values written with the id it registered without asking the registry, and asks for other ids', async () => {
    const { catalog: c, lookups } = registering(new Map([[7, historical('tool-event.v1')]]));
    await c.register('loopguard.tool-events', toolEventCodec, 'FULL_TRANSITIVE' as never);
    const avroValue = toolEventCodec.toAvro({ type: 'tool_call', ts: 1_700_000_000_000, runId: 'r1', toolName: 'read', args: { path: 'a.ts' } } as never);
    const own = frame(9, toolEventCodec.type.toBuffer(avroValue));
    const expected = toolEventCodec.fromAvro(avroValue);
    expect(expected).toMatchObject({ type: 'tool_call', runId: 'r1' });
    // Known at once: no promise, no lookup.
    expect(c.decodeCached(own, toolEventCodec)).toEqual(expected);
    expect(await c.decode(own, toolEventCodec)).toEqual(expected);
    expect(lookups).toEqual([]);
    // Another writer's id is still looked up, once.
    const old = historical('tool-event.v1');
    const other = frame(7, old.toBuffer(fc.sample(writable(old), { seed: 1, numRuns: 1 })[0]));
    expect(c.decodeCached(other, toolEventCodec)).toBeUndefined();
    // (random fields need not map to an event: only the lookups count here)
    for (let i = 0; i < 2; i++) await c.decode(other, toolEventCodec).catch(() => undefined);
    expect(lookups).toEqual([7]);
  });
});
