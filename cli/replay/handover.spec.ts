// A worker's packed results, once across (structured clone, as postMessage does) and unpacked,
// must be what structured clone of the results themselves gives: the same values, keys, key
// order and prototypes, over any number of chunks from one worker.
import fc from 'fast-check';
import { deserialize, serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { buildTopology } from '../../topology/build.js';
import { configFrom } from '../../topology/config.js';
import { Packer, Unpacker } from './handover.js';
import { parseChunk, type ParsedLine } from './parse.js';

const topology = buildTopology(configFrom({}));
const across = <T>(v: T): T => deserialize(serialize(v)) as T;

/** Every object's own keys in order, its prototype, and every value: what the fold could tell apart. */
function layout(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return Object.is(v, -0) ? '-0' : v;
  const p = Object.getPrototypeOf(v) as unknown;
  const proto = p === Object.prototype ? 'object' : p === Array.prototype ? 'array' : p === null ? 'null' : Object.prototype.toString.call(v);
  return [proto, Reflect.ownKeys(v).map((k) => [String(k), layout((v as Record<PropertyKey, unknown>)[k])])];
}

/** Packs each chunk's lines on one side, unpacks on the other, in order. */
function handOver(chunks: ReadonlyArray<readonly ParsedLine[]>): ParsedLine[][] {
  const packer = new Packer();
  const unpacker = new Unpacker();
  return chunks.map((lines) => unpacker.unpack(across(packer.pack(lines))));
}

const lines = (...texts: string[]) => parseChunk(topology, Buffer.from(texts.join('\n') + '\n'));
const base = '"ts":1700000000000,"runId":"r1","sessionKey":"s1"';

describe('the hand-over of parsed lines', () => {
  it('gives every kind of line as structured clone does: tool and channel events, invalid and blank lines', () => {
    const chunk = lines(
      `{"type":"tool_call",${base},"toolName":"read","args":{"path":"/a","n":[1,2,{"x":null}]},"toolCallId":"c1","eventId":"e1"}`,
      `{"type":"tool_outcome",${base},"toolName":"read","args":{"path":"/a","n":[1,2,{"x":null}]},"toolCallId":"c1","result":{"ok":true}}`,
      `{"type":"tool_outcome",${base},"toolName":"exec","argsHash":"exec:1","error":{"message":"Unknown tool: nope"}}`,
      `{"type":"tool_outcome",${base},"toolName":"read","argsHash":"read:1","resultHash":"h","transient":true}`,
      `{"type":"tool_call",${base},"toolName":"process","args":{"action":"poll"},"agentId":"a1"}`,
      `{"type":"compaction",${base}}`,
      `{"type":"run_end",${base}}`,
      '',
      '   ',
      '{not json',
      '{"type":"tool_call","ts":1}',
      `{"type":"bot_message","ts":1700000000000,"channel":"slack","accountId":"acc","conversationId":"c","senderId":"b1","receiverId":"b2","eventId":"m1","hopLimit":3}`,
      `{"type":"human_message","ts":1700000000000,"channel":"slack","accountId":"acc","conversationId":"c","senderId":"p1"}`,
    );
    expect(chunk.filter((l) => l === null)).toHaveLength(2);
    expect(chunk.filter((l) => l !== null && !l.ok)).toHaveLength(2);
    // Twice: the second time every shape is known, and none is sent again.
    const [first, second] = handOver([chunk, chunk]);
    expect(layout(first)).toEqual(layout(across(chunk)));
    expect(layout(second)).toEqual(layout(across(chunk)));
    const packer = new Packer();
    expect(packer.pack(chunk).shapes.length).toBeGreaterThan(0);
    expect(packer.pack(chunk).shapes).toEqual([]);
  });

  it('sends objects whole that it cannot rebuild key by key: an own __proto__, other prototypes, deep nesting, and shapes past its limit', () => {
    const own = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as object;
    const bare = Object.assign(Object.create(null) as object, { a: 1 });
    const many = Array.from({ length: 100 }, (_, i) => ({ ok: true as const, node: 0, event: { [`k${i}`]: i, nested: { [`n${i}`]: [i] } } }));
    let deep: object = { end: true };
    for (let i = 0; i < 100; i++) deep = { deep };
    const chunk: ParsedLine[] = [{ ok: true, node: 1, event: { a: own, b: bare, c: new Date(0), d: [own], deep } }, ...many];
    const [back] = handOver([chunk]);
    expect(layout(back)).toEqual(layout(across(chunk)));
    const event = back![0] as { event: { a: object } };
    expect(Object.getPrototypeOf(event.event.a)).toBe(Object.prototype);
    expect(Object.hasOwn(event.event.a, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('gives what structured clone gives for any lines, over many chunks from one worker', () => {
    const value = fc.oneof(fc.jsonValue(), fc.constantFrom(undefined, -0, Number.NaN), fc.dictionary(fc.constantFrom('a', 'b', '__proto__', '1', 'constructor'), fc.jsonValue()));
    const line = fc.oneof(
      fc.constant(null),
      fc.record({ ok: fc.constant(false as const), reason: fc.string() }),
      fc.record({ ok: fc.constant(true as const), node: fc.nat(3), event: fc.oneof(value, fc.dictionary(fc.string({ maxLength: 3 }), value)) }),
    );
    fc.assert(
      fc.property(fc.array(fc.array(line, { maxLength: 8 }), { maxLength: 6 }), (chunks) => {
        expect(layout(handOver(chunks as ParsedLine[][]))).toEqual(layout(across(chunks)));
      }),
      { numRuns: 300 },
    );
  });
});
