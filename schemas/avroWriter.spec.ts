import fc from 'fast-check';
import type avro from 'avsc';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { compileEncoder, type AvroEncode } from './avroWriter.js';
import { channelEventCodec, decisionCodec, toolEventCodec } from './codecs.js';
import { botLoopStateCodec, toolLoopStateCodec } from './state.js';

const avsc = createRequire(import.meta.url)('avsc') as typeof avro;

interface T {
  typeName: string;
  fields?: Array<{ name: string; type: T }>;
  types?: T[];
  itemsType?: T;
  symbols?: string[];
}

// Strings around avsc's two ways of writing them (a loop up to 64 bytes, utf8Write above),
// with multi-byte characters, surrogate pairs and unpaired surrogates.
const char = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'z', '0', ':', '\u0000', '\u007f') },
  { weight: 1, arbitrary: fc.constantFrom('é', '\u0080', '\u07ff', '\u0800', '€', '\uffff', '😀', '\ud800', '\udfff', '\udbff\udfff') },
);
const text = fc.oneof(
  fc.array(char, { maxLength: 80 }).map((cs) => cs.join('')),
  fc.integer({ min: 60, max: 70 }).map((n) => 'x'.repeat(n)),
  fc.tuple(fc.integer({ min: 0, max: 66 }), char).map(([n, c]) => 'x'.repeat(n) + c),
  fc.string({ unit: 'binary', maxLength: 70 }),
);
const long = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom(-1073741825, -1073741824, 1073741823, 1073741824, 2 ** 31, -(2 ** 31), 2 ** 53 - 2, -(2 ** 53 - 2), 9007199254740990, 9007199254740991, -0),
  fc.integer(),
  fc.double({ noNaN: false }),
);

/** Values for `t`, mostly valid, sometimes not (avsc must then decide). */
function valueOf(t: T, depth = 0): fc.Arbitrary<unknown> {
  const wrong = fc.constantFrom<unknown>(undefined, null, 'x', 1, 1.5, true, [], {});
  const ok = ((): fc.Arbitrary<unknown> => {
    switch (t.typeName) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'int':
        return fc.oneof(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.integer({ min: -200, max: 200 }));
      case 'long':
        return long;
      case 'float':
      case 'double':
        return fc.double();
      case 'string':
        return text;
      case 'enum':
        return fc.constantFrom(...t.symbols!);
      case 'array':
        return fc.array(valueOf(t.itemsType!, depth + 1), { maxLength: depth > 2 ? 2 : 25 });
      case 'record':
        return fc.record(Object.fromEntries(t.fields!.map((f) => [f.name, valueOf(f.type, depth + 1)])), { requiredKeys: [] });
      case 'union:unwrapped':
        return fc.oneof(...t.types!.map((b) => valueOf(b, depth + 1)));
      default:
        throw new Error(`no values for ${t.typeName}`);
    }
  })();
  return fc.oneof({ weight: 30, arbitrary: ok }, { weight: 1, arbitrary: wrong });
}

/**
 * What `encode` does with `value` in a buffer of `size` at `pos`: the end it returns and the
 * buffer up to it (the value's bytes, and the untouched ones before), or what it throws. Past
 * the end avsc leaves scratch bytes (its short-string loop runs on for multi-byte strings),
 * which the next value written there overwrites.
 */
function outcome(encode: AvroEncode, value: unknown, size: number, pos: number): { end: number; bytes: string } | { error: string } {
  const buf = Buffer.alloc(size, 0xaa);
  try {
    const end = encode(value, buf, pos);
    return { end, bytes: end < 0 ? '' : buf.subarray(0, end).toString('hex') };
  } catch (e) {
    return { error: String(e) };
  }
}

const codecs = { decision: decisionCodec, toolEvent: toolEventCodec, channelEvent: channelEventCodec, toolLoopState: toolLoopStateCodec, botLoopState: botLoopStateCodec };

describe('compileEncoder', () => {
  for (const [name, codec] of Object.entries(codecs)) {
    it(`writes what avsc writes, throws what avsc throws (${name})`, () => {
      const type = codec.type;
      const fast = compileEncoder(type);
      const slow: AvroEncode = (v, b, p) => type.encode(v, b, p);
      fc.assert(
        fc.property(valueOf(type as unknown as T), fc.integer({ min: 0, max: 7 }), fc.constantFrom(8192, 40, 3), (value, pos, size) => {
          expect(outcome(fast, value, size + pos, pos)).toEqual(outcome(slow, value, size + pos, pos));
        }),
        { numRuns: 3000 },
      );
    });
  }

  it('writes a JSON-form decision mapped by its codec as avsc does, short strings and all', () => {
    const type = decisionCodec.type;
    const fast = compileEncoder(type);
    const decision = {
      type: 'tool_decision',
      id: 'd-1',
      source: { topic: 't', partition: 1, offset: 2 ** 40 },
      key: 'run-é',
      ts: 1_700_000_000_000,
      decision: 'block',
      evidence: { since: 5, toolCallIds: ['c1', '\ud800', '😀', 'x'.repeat(64), 'é'.repeat(33)] },
    };
    const avroValue = decisionCodec.toAvro(decision as never);
    const a = Buffer.alloc(4096);
    const b = Buffer.alloc(4096);
    const end = type.encode(avroValue, a, 0);
    expect(fast(avroValue, b, 0)).toBe(end);
    expect(b.subarray(0, end).equals(a.subarray(0, end))).toBe(true);
  });

  it('leaves types it does not compile to avsc', () => {
    const type = avsc.Type.forSchema({ type: 'record', name: 'M', fields: [{ name: 'm', type: { type: 'map', values: 'double' } }] });
    const fast = compileEncoder(type);
    const value = { m: { a: 1.5 } };
    expect(outcome(fast, value, 64, 0)).toEqual(outcome((v, b, p) => type.encode(v, b, p), value, 64, 0));
  });
});
