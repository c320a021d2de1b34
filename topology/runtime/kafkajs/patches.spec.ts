import { readFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  crc32c,
  fastRecordBatch,
  filterAbortedMessages,
  fastRecordEncoder,
  frameRequest,
  groupMessagesPerPartition,
  kafkajsPatched,
  produceRequestV3,
  scheduleCheckPendingRequests,
  type ProduceArgs,
  type RecordBatchArgs,
} from './patches.js';

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
const fast = fastRecordEncoder((r) => (fallbacks++, kafkajsRecord(r))) as RecordFn;

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

describe('CRC-32C eight bytes a step', () => {
  const kafkajsCrc = original<(b: Buffer) => number>('protocol/recordBatch/crc32C/index.js');

  it('gives the standard check value', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
  });

  it('gives what kafkajs gives for every length and alignment', () => {
    let seed = 1;
    const bytes = Buffer.alloc(4_100);
    for (let i = 0; i < bytes.length; i++) {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      bytes[i] = seed >>> 24;
    }
    for (let start = 0; start < 9; start++) {
      for (let length = 0; length < 40; length++) expect(crc32c(bytes.subarray(start, start + length))).toBe(kafkajsCrc(bytes.subarray(start, start + length)));
      expect(crc32c(bytes.subarray(start))).toBe(kafkajsCrc(bytes.subarray(start)));
    }
    expect(crc32c(Buffer.alloc(1_000, 0xff))).toBe(kafkajsCrc(Buffer.alloc(1_000, 0xff)));
  });
});

describe('fast kafkajs record batch', () => {
  type BatchFn = (a: RecordBatchArgs) => Promise<Encoder>;
  const kafkajsBatch = original<{ RecordBatch: BatchFn }>('protocol/recordBatch/v0/index.js').RecordBatch;
  const Long = original<{ fromValue(v: unknown): unknown; fromInt(v: number): unknown }>('utils/long.js');
  let delegated = 0;
  const fastBatch = fastRecordBatch((a) => (delegated++, kafkajsBatch(a)), EncoderClass as never, crc32c) as BatchFn;
  const same = async (a: RecordBatchArgs) => {
    const ours = await fastBatch(a);
    const theirs = await kafkajsBatch(a);
    expect(ours.buffer.equals(theirs.buffer)).toBe(true);
    expect(ours.offset).toBe(theirs.offset);
  };
  const recordsOf = (n: number, encode: RecordFn) =>
    Array.from({ length: n }, (_, i) => encode({ key: `run-${i % 7}`, value: Buffer.alloc((i * 37) % 400, i), offsetDelta: i, timestampDelta: i * 3 }));

  it('writes kafkajs bytes for uncompressed batches, whatever the header fields', async () => {
    delegated = 0;
    const ts = { firstTimestamp: 1_700_000_000_000, maxTimestamp: 1_700_000_000_999 };
    for (const n of [0, 1, 2, 50, 2_000])
      for (const encode of [fast, kafkajsRecord]) {
        const records = recordsOf(n, encode);
        await same({ records, ...ts });
        await same({
          records,
          ...ts,
          compression: 0,
          transactional: true,
          producerId: Long.fromValue(123_456_789_012),
          producerEpoch: 7,
          firstSequence: 99,
          lastOffsetDelta: n - 1,
        });
        await same({
          records,
          firstTimestamp: '1700000000000',
          maxTimestamp: Long.fromValue(1_700_000_000_999),
          firstOffset: Long.fromInt(42),
          partitionLeaderEpoch: 3,
          producerId: -1,
        });
      }
    expect(delegated).toBe(0);
  });

  it('writes each record once, into the batch: one buffer allocated for all of them', async () => {
    const records = recordsOf(50, fast);
    const alloc = vi.spyOn(Buffer, 'allocUnsafe');
    try {
      await fastBatch({ records, firstTimestamp: 1, maxTimestamp: 2 });
      expect(alloc).toHaveBeenCalledTimes(1);
    } finally {
      alloc.mockRestore();
    }
    // Read as encoders (kafkajs's compressed path does), the same records give their bytes.
    await same({ records, compression: 1, firstTimestamp: 1, maxTimestamp: 2 });
  });

  it('leaves compressed batches, and records that are not encoders, to kafkajs', async () => {
    delegated = 0;
    const records = recordsOf(20, fast);
    await same({ records, compression: 1, firstTimestamp: 1, maxTimestamp: 2 });
    expect(delegated).toBe(1);
    await expect(fastBatch({ records: [{ not: 'an encoder' }], firstTimestamp: 1, maxTimestamp: 1 })).rejects.toThrow(/Encoder/);
    await expect(kafkajsBatch({ records: [{ not: 'an encoder' }], firstTimestamp: 1, maxTimestamp: 1 })).rejects.toThrow(/Encoder/);
    expect(delegated).toBe(2);
  });
});

describe('Produce request v3 without a spread per message', () => {
  afterEach(() => vi.restoreAllMocks());
  type Request = (a: ProduceArgs) => { apiKey: number; apiVersion: number; apiName: string; expectResponse(): boolean; encode(): Promise<Encoder> };
  /** kafkajs's request module, compiled with kafkajs's own record and record batch encoders under it. */
  const kafkajsRequest = (() => {
    const deps = {
      [src('protocol/recordBatch/record/v0/index.js')]: kafkajsRecord,
      [src('protocol/recordBatch/v0/index.js')]: original('protocol/recordBatch/v0/index.js'),
    };
    const saved = Object.keys(deps).map((f) => [f, require.cache[f]] as const);
    for (const [f, exports] of Object.entries(deps)) {
      const m = new Module(f);
      m.exports = exports;
      m.loaded = true;
      require.cache[f] = m;
    }
    try {
      return original<Request>('protocol/requests/produce/v3/request.js');
    } finally {
      for (const [f, m] of saved)
        if (m === undefined) delete require.cache[f];
        else require.cache[f] = m;
    }
  })();
  const Long = original<{ fromInt(v: number): unknown; fromValue(v: unknown): unknown }>('utils/long.js');
  const ours = produceRequestV3({
    Encoder: EncoderClass as never,
    Record: fast as never,
    RecordBatch: fastRecordBatch(
      original<{ RecordBatch: never }>('protocol/recordBatch/v0/index.js').RecordBatch,
      EncoderClass as never,
      original('protocol/recordBatch/crc32C/index.js'),
    ),
    apiKey: 0,
    longFromInt: (n) => Long.fromInt(n),
  }) as unknown as Request;

  const messages = (n: number, at?: (i: number) => unknown, extra: Record<string, unknown> = {}) =>
    Array.from({ length: n }, (_, i) => ({ key: `run-${i % 5}`, value: Buffer.alloc((i * 13) % 300, i), timestamp: at?.(i), ...extra }));
  const same = async (a: ProduceArgs) => {
    const [o, t] = [ours(a), kafkajsRequest(a)];
    expect({ ...o, encode: undefined, expectResponse: o.expectResponse() }).toEqual({ ...t, encode: undefined, expectResponse: t.expectResponse() });
    expect((await o.encode()).buffer.equals((await t.encode()).buffer)).toBe(true);
  };

  it('framed, is what kafkajs frames, its pieces copied once', async () => {
    vi.spyOn(Date, 'now').mockReturnValue(1_700_000_000_500);
    const a = { acks: -1, timeout: 30_000, topicData: [{ topic: 'verdicts', partitions: [0, 2].map((partition) => ({ partition, messages: messages(200) })) }] };
    const theirs = await kafkajsFrame({ correlationId: 7, clientId: 'loopguard', request: kafkajsRequest(a) });
    const concat = vi.spyOn(Buffer, 'concat');
    const framed = await ourFrame({ correlationId: 7, clientId: 'loopguard', request: ours(a) });
    expect(concat).toHaveBeenCalledTimes(1);
    expect(framed.buffer.equals(theirs.buffer)).toBe(true);
  });

  it('is what the installed patches put in place', () => {
    expect(kafkajsPatched).toBe(true);
  });

  it('encodes as kafkajs does: topics, partitions, timestamps, headers, transactions, compression', async () => {
    vi.spyOn(Date, 'now').mockReturnValue(1_700_000_000_500);
    const topicData = (msgs: (p: number) => ReturnType<typeof messages>) => [
      { topic: 'verdicts', partitions: [0, 3].map((partition) => ({ partition, firstSequence: partition * 10, messages: msgs(partition) })) },
      { topic: 'changelog', partitions: [{ partition: 1, messages: msgs(1) }] },
    ];
    await same({ acks: -1, timeout: 30_000, topicData: topicData(() => messages(300)) });
    await same({ acks: 1, timeout: 5_000, topicData: topicData((p) => messages(40 + p, (i) => String(1_700_000_000_000 + ((i * 7919) % 1000)))) });
    await same({
      acks: -1,
      timeout: 30_000,
      transactionalId: 'loopguard-0',
      producerId: Long.fromValue(4242),
      producerEpoch: 3,
      topicData: topicData((p) => messages(25, (i) => (i % 3 === 0 ? undefined : 1_700_000_000_000 + i + p))),
    });
    await same({ acks: 0, timeout: 1, topicData: topicData(() => messages(10, undefined, { headers: { a: 'b' }, partition: 9, offsetDelta: 77 })) });
    await same({ acks: -1, timeout: 30_000, compression: 1, topicData: topicData(() => messages(30, (i) => 1_700_000_000_000 + i)) });
    await same({ acks: -1, timeout: 30_000, topicData: [{ topic: 'empty', partitions: [] }] });
  });
});

type Frame = (a: { correlationId: number; clientId: string | null; request: { apiKey: number; apiVersion: number; encode: () => Promise<Encoder> } }) => Promise<Encoder>;
const kafkajsFrame = original<Frame>('protocol/request.js');
const ourFrame = frameRequest(EncoderClass as never) as unknown as Frame;

describe('request framing in one buffer', () => {
  const ours = ourFrame;

  it('frames as kafkajs does', async () => {
    for (const bytes of [0, 1, 300, 70_000, 600_000])
      for (const clientId of ['loopguard', null, 'klient-ü'])
        for (const correlationId of [0, 1, 2 ** 31 - 1]) {
          const payload = () => {
            const e = new EncoderClass() as unknown as Encoder & { writeBytes(b: Buffer): Encoder };
            return Promise.resolve(e.writeBytes(Buffer.alloc(bytes, bytes % 251)));
          };
          const a = await ours({ correlationId, clientId, request: { apiKey: 0, apiVersion: 7, encode: payload } });
          const b = await kafkajsFrame({ correlationId, clientId, request: { apiKey: 0, apiVersion: 7, encode: payload } });
          expect(a.buffer.equals(b.buffer)).toBe(true);
          expect(a.offset).toBe(b.offset);
        }
  });
});

describe('read-committed filter of aborted transactions', () => {
  type Message = { offset: string; key: Buffer | null; isControlRecord: boolean; batchContext: { producerId: string; inTransaction: boolean } };
  type Filter = (a: { messages: Message[]; abortedTransactions?: Array<{ producerId: string; firstOffset: string }> }) => Message[];
  const kafkajsFilter = original<Filter>('consumer/filterAbortedMessages.js');
  const ABORT = Buffer.from([0, 0, 0, 0]);
  const COMMIT = Buffer.from([0, 0, 0, 1]);
  /** Records from `spec`: 'P3' a record of producer 3's transaction, 'A3' / 'C3' its abort / commit marker, 'x' a non-transactional record. */
  const log = (from: number, ...spec: string[]): Message[] =>
    spec.map((t, i) => ({
      offset: String(from + i),
      key: t[0] === 'A' ? ABORT : t[0] === 'C' ? COMMIT : Buffer.from(`k${i}`),
      isControlRecord: t[0] === 'A' || t[0] === 'C',
      batchContext: { producerId: t === 'x' ? '-1' : t.slice(1), inTransaction: t !== 'x' },
    }));
  const delivered = (f: Filter, messages: Message[], aborted: Array<[string, number]>) =>
    f({ messages, abortedTransactions: aborted.map(([producerId, first]) => ({ producerId, firstOffset: String(first) })) })
      .filter((m) => !m.isControlRecord)
      .map((m) => `${m.batchContext.producerId}@${m.offset}`);

  it('is what the installed patches put in place', () => {
    expect(require(src('consumer/filterAbortedMessages.js'))).toBe(filterAbortedMessages);
  });

  it('drops the records of every aborted transaction begun before the fetch, where kafkajs let the first through', () => {
    // Producers 1 and 2 both had a transaction open from before offset 10 (the fetch's start), both aborted.
    const fetched = log(10, 'P2', 'P1', 'P2', 'A1', 'A2', 'P3', 'C3', 'x');
    const aborted: Array<[string, number]> = [
      ['1', 4],
      ['2', 7],
    ];
    expect(delivered(filterAbortedMessages as unknown as Filter, fetched, aborted)).toEqual(['3@15', '-1@17']);
    expect(delivered(kafkajsFilter, fetched, aborted)).toEqual(['2@10', '3@15', '-1@17']);
  });

  it('takes the aborted transactions in order of first offset, whatever order they come in', () => {
    const fetched = log(0, 'P1', 'P2', 'P1', 'A1', 'P3', 'A2', 'C3');
    expect(
      delivered(filterAbortedMessages as unknown as Filter, fetched, [
        ['2', 1],
        ['1', 0],
      ]),
    ).toEqual(['3@4']);
  });

  it('filters as kafkajs does when aborted transactions begin one at a time', () => {
    const cases: Array<[Message[], Array<[string, number]>]> = [
      [log(0, 'P1', 'P1', 'C1', 'x', 'P1', 'A1', 'P1', 'C1'), [['1', 4]]],
      [
        log(0, 'P1', 'P2', 'P1', 'A1', 'P2', 'C2', 'P1', 'A1'),
        [
          ['1', 0],
          ['1', 6],
        ],
      ],
      [log(5, 'x', 'P4', 'C4'), []],
      [log(0, 'P1', 'A1', 'P1', 'C1'), [['1', 0]]],
    ];
    for (const [messages, aborted] of cases) expect(delivered(filterAbortedMessages as unknown as Filter, messages, aborted)).toEqual(delivered(kafkajsFilter, messages, aborted));
    expect(filterAbortedMessages({ messages: log(0, 'P1', 'C1'), abortedTransactions: [] })).toHaveLength(2);
  });
});

describe("the request queue's check of pending requests", () => {
  type Queue = { pending: unknown[]; throttledUntil: number; throttleCheckTimeoutId: NodeJS.Timeout | null; scheduleCheckPendingRequests(): void; destroy(): void };
  const RequestQueue = require(src('network/requestQueue/index.js')) as new (o: Record<string, unknown>) => Queue;
  const queue = () =>
    new RequestQueue({ maxInFlightRequests: 1, requestTimeout: 30_000, enforceRequestTimeout: false, clientId: 'c', broker: 'b', logger: { debug() {}, warn() {} } });

  it('is what the installed patches put in place', () => {
    expect(RequestQueue.prototype.scheduleCheckPendingRequests).toBe(scheduleCheckPendingRequests);
  });

  it('sets no timer with nothing pending (kafkajs set one with a negative delay: a TimeoutNegativeWarning on Node 24)', () => {
    const q = queue();
    const timers = vi.spyOn(globalThis, 'setTimeout');
    try {
      q.scheduleCheckPendingRequests();
      q.throttledUntil = Date.now() + 50;
      q.scheduleCheckPendingRequests();
      expect(q.throttleCheckTimeoutId).toBeNull();
      expect(timers).not.toHaveBeenCalled();
    } finally {
      timers.mockRestore();
      q.destroy();
    }
  });

  it('checks pending requests when the throttle ends, or soon when there is none', () => {
    const q = queue();
    const timers = vi.spyOn(globalThis, 'setTimeout');
    try {
      q.pending.push({});
      q.scheduleCheckPendingRequests();
      expect(timers.mock.calls.at(-1)?.[1]).toBe(10);
      q.destroy();
      q.throttledUntil = Date.now() + 5_000;
      q.scheduleCheckPendingRequests();
      expect(timers.mock.calls.at(-1)?.[1]).toBeGreaterThan(4_000);
    } finally {
      timers.mockRestore();
      q.destroy();
    }
  });
});
