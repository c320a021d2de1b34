import { readFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fastRecordEncoder, groupMessagesPerPartition } from './patches.js';

const require = createRequire(import.meta.url);
const root = dirname(require.resolve('kafkajs/package.json'));
const src = (p: string) => join(root, 'src', p);

/** A kafkajs module compiled afresh from its file: the original, whatever the module cache holds. */
function original<T>(p: string): T {
  const file = src(p);
  const m = new Module(file) as Module & { _compile(code: string, file: string): void; paths: string[] };
  m.filename = file;
  m.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(dirname(file));
  m._compile(readFileSync(file, 'utf8'), file);
  return m.exports as T;
}

type Encoder = { buf: Buffer; offset: number; readonly buffer: Buffer };
type RecordFn = (r: Record<string, unknown>) => Encoder;
const kafkajsRecord = original<RecordFn>('protocol/recordBatch/record/v0/index.js');
const EncoderClass = require(src('protocol/encoder.js')) as { prototype: object; new (): Encoder & { writeEncoderArray(a: Encoder[]): Encoder } };
let fallbacks = 0;
const fast = fastRecordEncoder((r) => (fallbacks++, kafkajsRecord(r)), EncoderClass.prototype) as RecordFn;

describe('fast kafkajs record encoder', () => {
  const keys: unknown[] = [null, undefined, '', 'run-1', 'ключ-ü', 'k'.repeat(200), Buffer.alloc(0), Buffer.from([0, 1, 255]), Buffer.alloc(70_000, 7)];
  const values: unknown[] = [null, undefined, Buffer.alloc(0), Buffer.from('hello'), Buffer.alloc(130, 3), Buffer.alloc(20_000, 9), 'text value'];
  const deltas = [0, 1, -1, 63, 64, -64, -65, 127, 128, 8191, 8192, 2 ** 20, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, -(2 ** 31) - 1, 1_700_000_000_000];

  it('writes kafkajs bytes for every key, value and delta', () => {
    fallbacks = 0;
    for (const key of keys)
      for (const value of values)
        for (const d of deltas) {
          const r = { key, value, offsetDelta: Number.isInteger(d) && Math.abs(d) < 2 ** 31 ? d : 5, timestampDelta: d, partition: 3 };
          expect(fast(r).buffer.equals(kafkajsRecord(r).buffer)).toBe(true);
        }
    // Only deltas beyond 32 bits (3 of 17, with every key and value) go to kafkajs's encoder.
    expect(fallbacks).toBe(keys.length * values.length * 3);
  });

  it('writes kafkajs bytes with defaults and with headers (kafkajs encodes those itself)', () => {
    const cases = [
      { value: Buffer.from('v') },
      { key: 'k', value: Buffer.from('v'), headers: {} },
      { key: 'k', value: Buffer.from('v'), headers: { a: 'b', 'loopguard.reason': 'x'.repeat(300) } },
      { key: 'k', value: Buffer.from('v'), headers: { a: ['1', '2'] } },
      { key: Buffer.from('k'), value: null, headers: { a: Buffer.from('b') }, offsetDelta: 9, timestampDelta: 12 },
    ];
    for (const r of cases) expect(fast(r).buffer.equals(kafkajsRecord(r).buffer)).toBe(true);
  });

  it('gives encoders that a record batch reads like kafkajs ones', () => {
    const rs = Array.from({ length: 50 }, (_, i) => ({ key: `key-${i}`, value: Buffer.alloc(i * 3, i), offsetDelta: i, timestampDelta: 0 }));
    const ours = new EncoderClass().writeEncoderArray(rs.map(fast));
    const theirs = new EncoderClass().writeEncoderArray(rs.map(kafkajsRecord));
    expect(ours.buffer.equals(theirs.buffer)).toBe(true);
  });
});

describe('linear groupMessagesPerPartition', () => {
  type Group = typeof groupMessagesPerPartition;
  const kafkajsGroup = original<Group>('producer/groupMessagesPerPartition.js');

  it('groups as kafkajs does, in the same order', () => {
    const messages = Array.from({ length: 1_000 }, (_, i) => ({ key: `k${i}`, value: null, partition: (i * 7) % 5 }));
    const args = { topic: 't', partitionMetadata: [{}, {}], messages, partitioner: ({ message }: { message: { partition?: number } }) => message.partition! };
    const ours = groupMessagesPerPartition(args as Parameters<Group>[0]);
    expect(ours).toEqual(kafkajsGroup(args as Parameters<Group>[0]));
    expect(Object.keys(ours)).toEqual(['0', '1', '2', '3', '4']);
    expect(ours[2]!.map((m) => m.key)).toEqual(messages.filter((m) => m.partition === 2).map((m) => m.key));
  });

  it('returns nothing without partition metadata', () => {
    expect(groupMessagesPerPartition({ topic: 't', partitionMetadata: [], messages: [{ value: null }], partitioner: () => 0 })).toEqual({});
  });
});
