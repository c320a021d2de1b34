// Seven kafkajs 2.2.4 internals replaced (the request queue's timer at the end). Five, four of them only on the produce path, by versions
// that give the same results in linear time and without per-byte allocations; and the consumer's
// filter of aborted transactions, which let records of aborted transactions through
// (filterAbortedMessages below). Measured on `loopguard run` at
// at-least-once (issue 11, in `git log -p bench/README.md`), the first two were a quarter of its CPU:
// - producer/groupMessagesPerPartition copies a partition's array for every message it adds
//   (`[...current, message]`): quadratic in the records of one partition in one request, and
//   a ~2,000-record request of one partition allocated ~16 MB of arrays for the collector;
// - the record encoder (protocol/recordBatch/record/v0) zero-fills a 512-byte buffer per record,
//   makes a Buffer per varint, and sizes and writes the timestamp delta with 64-bit Long objects;
// - the record batch (protocol/recordBatch/v0) copies each record on its own into a buffer grown
//   by doubling, then the whole batch twice more; the Produce request (requests/produce/v3)
//   spreads every message into a new object and copies each batch three more times, and the
//   request framing (protocol/request.js) twice more (the fourth round, in `git log -p bench/README.md`).
//   Here a record's bytes are written once, into its batch, and a batch's copied once more, into
//   the framed request (issue 31: 8 % more events/s of kafkajs at-least-once).
// kafkajs binds them with `require` when it loads, so they are put in the module cache before
// it does: the adapter takes kafkajs from `kafkajs` below, required only after that (an `import`
// would be hoisted above it, here or in a bundle). When kafkajs is another version, or was
// loaded before this ran, nothing is replaced: the originals are slower, and their read-committed
// filter has the bug below (connectKafka warns once). patches.spec.ts checks the produce-path
// replacements byte for byte against the originals.
import { createRequire, Module } from 'node:module';
import type kafkajsTypes from 'kafkajs';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The kafkajs version whose internals these replace. */
export const PATCHED_VERSION = '2.2.4';

interface KafkajsMessage {
  readonly key?: unknown;
  readonly value?: unknown;
  readonly headers?: unknown;
}
type Partitioner = (args: { topic: string; partitionMetadata: unknown[]; message: KafkajsMessage }) => number;

/** The messages of one topic by partition: what kafkajs's version returns, without the copies. */
export function groupMessagesPerPartition({
  topic,
  partitionMetadata,
  messages,
  partitioner,
}: {
  topic: string;
  partitionMetadata: unknown[];
  messages: readonly KafkajsMessage[];
  partitioner: Partitioner;
}): Record<number, KafkajsMessage[]> {
  if (partitionMetadata.length === 0) return {};
  const result: Record<number, KafkajsMessage[]> = {};
  for (const message of messages) {
    const partition = partitioner({ topic, partitionMetadata, message });
    (result[partition] ??= []).push(message);
  }
  return result;
}

/** kafkajs's Encoder: only what a record batch reads back from a record (`buf`, `offset`). */
interface EncoderLike {
  buf: Buffer;
  offset: number;
}
type RecordEncoder = (r: { offsetDelta?: number; timestampDelta?: number; key?: unknown; value?: unknown; headers?: unknown }) => EncoderLike;

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** Zig-zag: small negative and positive numbers both get short varints (as kafkajs encodes them). */
const zigZag = (v: number): number => ((v << 1) ^ (v >> 31)) >>> 0;

function varIntSize(u: number): number {
  let n = 1;
  while (u >= 0x80) {
    u >>>= 7;
    n++;
  }
  return n;
}

function writeVarInt(buf: Buffer, at: number, u: number): number {
  while (u >= 0x80) {
    buf[at++] = (u & 0x7f) | 0x80;
    u >>>= 7;
  }
  buf[at++] = u;
  return at;
}

const isInt32 = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX;
const isNil = (v: unknown): v is null | undefined => v === null || v === undefined;
const plainBytes = (v: unknown): v is Buffer | string | null | undefined => isNil(v) || typeof v === 'string' || Buffer.isBuffer(v);
/** Bytes of a key or value; -1 for none (kafkajs writes null as length -1). */
const sizeOf = (v: Buffer | string | null | undefined): number => (isNil(v) ? -1 : typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : v.length);
const noHeaders = (h: unknown): boolean => {
  if (h === undefined) return true;
  if (typeof h !== 'object' || h === null) return false;
  for (const _ in h) return false;
  return true;
};

/**
 * A record of the common kind, not yet written: its bytes go straight into the record batch
 * that takes it (fastRecordBatch). Anything else that reads it as an encoder (kafkajs's own batch
 * encoder, for compressed batches) gets a buffer of its bytes, written on first read.
 */
class PlainRecord {
  private bytes: Buffer | undefined;
  constructor(
    /** Its size in bytes (an encoder's `offset`). */
    readonly offset: number,
    private readonly body: number,
    private readonly ts: number,
    private readonly od: number,
    private readonly key: Buffer | string | null | undefined,
    private readonly keyBytes: number,
    private readonly value: Buffer | string | null | undefined,
    private readonly valueBytes: number,
  ) {}

  /** Writes the record into `buf` at `at`, returning where it ends. */
  writeTo(buf: Buffer, at: number): number {
    const { key, value, keyBytes, valueBytes } = this;
    at = writeVarInt(buf, at, zigZag(this.body));
    buf[at++] = 0;
    at = writeVarInt(buf, at, this.ts);
    at = writeVarInt(buf, at, this.od);
    at = writeVarInt(buf, at, zigZag(keyBytes));
    if (typeof key === 'string') at += buf.write(key, at, keyBytes, 'utf8');
    else if (!isNil(key)) at += key.copy(buf, at);
    at = writeVarInt(buf, at, zigZag(valueBytes));
    if (typeof value === 'string') at += buf.write(value, at, valueBytes, 'utf8');
    else if (!isNil(value)) at += value.copy(buf, at);
    buf[at++] = 0;
    return at;
  }

  get buf(): Buffer {
    if (this.bytes === undefined) {
      this.bytes = Buffer.allocUnsafe(this.offset);
      this.writeTo(this.bytes, 0);
    }
    return this.bytes;
  }

  /** kafkajs's Encoder#buffer. */
  get buffer(): Buffer {
    return this.buf.subarray(0, this.offset);
  }
}

/**
 * A record encoder giving kafkajs's bytes: the common record (no headers, key and value a
 * Buffer, a string or null, deltas within 32 bits) is sized here and written once, into the
 * batch that takes it; any other goes to kafkajs's own encoder.
 */
export function fastRecordEncoder(original: RecordEncoder): RecordEncoder {
  return (r) => {
    const { offsetDelta = 0, timestampDelta = 0, key, value, headers } = r;
    if (!isInt32(offsetDelta) || !isInt32(timestampDelta) || !plainBytes(key) || !plainBytes(value) || !noHeaders(headers)) return original(r);
    const keyBytes = sizeOf(key);
    const valueBytes = sizeOf(value);
    const ts = zigZag(timestampDelta);
    const od = zigZag(offsetDelta);
    // attributes, timestamp delta, offset delta, key, value, header count (0)
    const body = 1 + varIntSize(ts) + varIntSize(od) + varIntSize(zigZag(keyBytes)) + Math.max(0, keyBytes) + varIntSize(zigZag(valueBytes)) + Math.max(0, valueBytes) + 1;
    return new PlainRecord(varIntSize(zigZag(body)) + body, body, ts, od, key, keyBytes, value, valueBytes);
  };
}

/** kafkajs's Encoder, as far as a record batch's header uses it. */
interface KafkajsEncoder extends EncoderLike {
  writeInt8(v: number): this;
  writeInt16(v: number): this;
  writeInt32(v: number): this;
  writeInt64(v: unknown): this;
}
type EncoderClass = (new () => KafkajsEncoder) & { prototype: object };

export interface RecordBatchArgs {
  compression?: number;
  firstOffset?: unknown;
  firstTimestamp?: unknown;
  maxTimestamp?: unknown;
  partitionLeaderEpoch?: number;
  lastOffsetDelta?: number;
  transactional?: boolean;
  producerId?: unknown;
  producerEpoch?: number;
  firstSequence?: number;
  records?: unknown[];
}
type RecordBatchEncoder = (args: RecordBatchArgs) => Promise<EncoderLike>;

const isEncoder = (v: unknown): v is EncoderLike =>
  v instanceof PlainRecord ||
  (typeof v === 'object' &&
    v !== null &&
    Buffer.isBuffer((v as EncoderLike).buf) &&
    Number.isInteger((v as EncoderLike).offset) &&
    (v as EncoderLike).offset >= 0 &&
    (v as EncoderLike).offset <= (v as EncoderLike).buf.length);

/** kafkajs's record batch (v2): the fourth lowest attribute bit marks a transactional batch. */
const TRANSACTIONAL = 16;
const MAGIC_BYTE = 2;
/** CRC-32C tables for eight bytes a step: table k at k * 256 gives a byte's effect k bytes further on. */
const CRC32C_TABLES = ((): Int32Array => {
  const t = new Int32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n]!;
    for (let k = 1; k < 8; k++) {
      c = t[c & 0xff]! ^ (c >>> 8);
      t[k * 256 + n] = c;
    }
  }
  return t;
})();

/**
 * CRC-32C (Castagnoli) as kafkajs computes it, unsigned, eight bytes a step ("slicing by 8")
 * where kafkajs takes one: it was 5 % of an at-least-once run's busy main thread (a record
 * batch's CRC covers all of its bytes).
 */
export function crc32c(buf: Uint8Array): number {
  const t = CRC32C_TABLES;
  let crc = -1;
  let i = 0;
  for (const end = buf.length - (buf.length & 7); i < end; i += 8) {
    const a = crc ^ (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24));
    crc =
      t[1792 + (a & 0xff)]! ^
      t[1536 + ((a >>> 8) & 0xff)]! ^
      t[1280 + ((a >>> 16) & 0xff)]! ^
      t[1024 + (a >>> 24)]! ^
      t[768 + buf[i + 4]!]! ^
      t[512 + buf[i + 5]!]! ^
      t[256 + buf[i + 6]!]! ^
      t[buf[i + 7]!]!;
  }
  for (; i < buf.length; i++) crc = t[(crc ^ buf[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/** firstOffset (int64), batch length (int32), partition leader epoch (int32), magic (int8): before the CRC. */
const BEFORE_CRC = 8 + 4 + 4 + 1;

/**
 * A record batch encoder giving kafkajs's bytes: an uncompressed batch is written into one
 * buffer of its exact size, each record copied once. kafkajs writes the records into a buffer
 * grown by doubling (each record sliced and copied on its own), then copies that buffer twice
 * more, into the batch and into the length-prefixed bytes around it. Compressed batches go to
 * kafkajs's own encoder.
 */
export function fastRecordBatch(original: RecordBatchEncoder, Encoder: EncoderClass, crc32C: (b: Buffer) => number): RecordBatchEncoder {
  return async (args) => {
    const records = args.records ?? [];
    if ((args.compression ?? 0) !== 0 || !records.every(isEncoder)) return original(args);
    // kafkajs's defaults; header fields through its own encoder (int64s may be numbers, strings or Longs).
    const { firstOffset = 0, firstTimestamp = Date.now(), maxTimestamp = Date.now(), partitionLeaderEpoch = 0, lastOffsetDelta = 0 } = args;
    const { transactional = false, producerId = -1, producerEpoch = 0, firstSequence = 0 } = args;
    const header = new Encoder()
      .writeInt16(transactional ? TRANSACTIONAL : 0)
      .writeInt32(lastOffsetDelta)
      .writeInt64(firstTimestamp)
      .writeInt64(maxTimestamp)
      .writeInt64(producerId)
      .writeInt16(producerEpoch)
      .writeInt32(firstSequence)
      .writeInt32(records.length);
    let body = header.offset;
    for (const r of records) body += r.offset;
    const prefix = new Encoder()
      .writeInt64(firstOffset)
      .writeInt32(4 + 1 + 4 + body)
      .writeInt32(partitionLeaderEpoch)
      .writeInt8(MAGIC_BYTE);
    const buf = Buffer.allocUnsafe(BEFORE_CRC + 4 + body);
    buf.set(prefix.buf.subarray(0, BEFORE_CRC), 0);
    let at = BEFORE_CRC + 4;
    buf.set(header.buf.subarray(0, header.offset), at);
    at += header.offset;
    for (const r of records) {
      if (r instanceof PlainRecord) at = r.writeTo(buf, at);
      else {
        buf.set(r.offset === r.buf.length ? r.buf : r.buf.subarray(0, r.offset), at);
        at += r.offset;
      }
    }
    buf.writeUInt32BE(crc32C(buf.subarray(BEFORE_CRC + 4)), BEFORE_CRC);
    const encoder = Object.create(Encoder.prototype) as EncoderLike;
    encoder.buf = buf;
    encoder.offset = buf.length;
    return encoder;
  };
}

/** kafkajs's Encoder, as the Produce request uses it. */
interface RequestEncoder extends KafkajsEncoder {
  writeString(v: string | null): this;
  writeArray(v: unknown[]): this;
  writeEncoder(v: EncoderLike): this;
  size(): number;
}
interface ProduceMessage {
  key?: unknown;
  value?: unknown;
  headers?: unknown;
  timestamp?: unknown;
}
interface PartitionData {
  partition: number;
  messages: ProduceMessage[];
  firstSequence?: number;
  [more: string]: unknown;
}
interface TopicData {
  topic: string;
  partitions: PartitionData[];
  [more: string]: unknown;
}
export interface ProduceArgs {
  acks: number;
  timeout: number;
  transactionalId?: string | null;
  producerId?: unknown;
  producerEpoch?: number;
  compression?: number;
  topicData: TopicData[];
}
interface ProduceDeps {
  readonly Encoder: new () => RequestEncoder;
  readonly Record: RecordEncoder;
  readonly RecordBatch: RecordBatchEncoder;
  readonly apiKey: number;
  readonly longFromInt: (n: number) => unknown;
}

/**
 * A request's bytes in pieces, copied once, where they are framed (frameRequest); anything else
 * that reads it as an encoder gets them joined, on first read.
 */
class Pieces {
  private joined: Buffer | undefined;
  readonly offset: number;
  constructor(readonly pieces: readonly Buffer[]) {
    let n = 0;
    for (const p of pieces) n += p.length;
    this.offset = n;
  }

  get buf(): Buffer {
    return (this.joined ??= Buffer.concat(this.pieces, this.offset));
  }

  /** kafkajs's Encoder#buffer. */
  get buffer(): Buffer {
    return this.buf.subarray(0, this.offset);
  }
}

/**
 * kafkajs's Produce request v3 (v4 to v7 reuse it), line for line, but for one thing: each
 * message becomes a record through an object literal of the five fields the record encoder
 * reads, where kafkajs spreads the message into a new object with two more keys, which V8
 * builds slowly (it was the largest self time of the produce path, profiled).
 */
export function produceRequestV3({ Encoder, Record, RecordBatch, apiKey, longFromInt }: ProduceDeps) {
  const head = (e: EncoderLike) => e.buf.subarray(0, e.offset);
  const partitionEncoder =
    (compression: number) =>
    async ({
      partition,
      messages,
      transactionalId,
      firstSequence,
      producerId,
      producerEpoch,
    }: PartitionData & { transactionalId: string | null; producerId: unknown; producerEpoch: number }): Promise<Buffer[]> => {
      const dateNow = Date.now();
      const messageTimestamps = messages
        .map((m) => m.timestamp)
        .filter((timestamp) => timestamp !== null && timestamp !== undefined)
        .sort();
      const timestamps = messageTimestamps.length === 0 ? [dateNow] : messageTimestamps;
      const firstTimestamp = timestamps[0] as number;
      const maxTimestamp = timestamps[timestamps.length - 1];
      const records = messages.map((m, i) =>
        Record({ key: m.key, value: m.value, headers: m.headers, offsetDelta: i, timestampDelta: ((m.timestamp as number) || dateNow) - firstTimestamp }),
      );
      const recordBatch = await RecordBatch({
        compression,
        records,
        firstTimestamp,
        maxTimestamp,
        producerId,
        producerEpoch,
        firstSequence,
        transactional: !!transactionalId,
        lastOffsetDelta: records.length - 1,
      });
      return [head(new Encoder().writeInt32(partition).writeInt32(recordBatch.offset)), head(recordBatch)];
    };
  return ({ acks, timeout, transactionalId = null, producerId = longFromInt(-1), producerEpoch = 0, compression = 0, topicData }: ProduceArgs) => ({
    apiKey,
    apiVersion: 3,
    apiName: 'Produce',
    expectResponse: () => acks !== 0,
    // kafkajs nests an encoder per partition and per topic in the request's, each grown by
    // doubling (zero-filled) and copied into the next: here the pieces are copied once, by the
    // framing (frameRequest), into one buffer of the framed request's size.
    encode: async () => {
      const pieces = [head(new Encoder().writeString(transactionalId).writeInt16(acks).writeInt32(timeout).writeInt32(topicData.length))];
      for (const data of topicData) {
        const { topic, partitions } = data;
        const encodePartition = partitionEncoder(compression);
        pieces.push(head(new Encoder().writeString(topic).writeInt32(partitions.length)));
        for (const p of partitions) pieces.push(...(await encodePartition({ ...p, transactionalId, producerId, producerEpoch })));
      }
      return new Pieces(pieces);
    },
  });
}

/**
 * kafkajs's request framing (protocol/request.js): size, API key and version, correlation id,
 * client id, then the payload, written once into a buffer of their size, where kafkajs copies
 * the payload twice, into encoders grown by doubling.
 */
export function frameRequest(Encoder: new () => RequestEncoder) {
  return async ({
    correlationId,
    clientId,
    request: { apiKey, apiVersion, encode },
  }: {
    correlationId: number;
    clientId: string | null;
    request: { apiKey: number; apiVersion: number; encode: () => Promise<EncoderLike> };
  }) => {
    const payload = await encode();
    const header = new Encoder().writeInt16(apiKey).writeInt16(apiVersion).writeInt32(correlationId).writeString(clientId);
    const size = new Encoder().writeInt32(header.offset + payload.offset);
    const body = payload instanceof Pieces ? payload.pieces : [payload.buf.subarray(0, payload.offset)];
    const buf = Buffer.concat([size.buf.subarray(0, size.offset), header.buf.subarray(0, header.offset), ...body]);
    const framed = Object.create(Encoder.prototype) as EncoderLike;
    framed.buf = buf;
    framed.offset = buf.length;
    return framed;
  };
}

interface FetchedMessage {
  readonly offset: string;
  readonly key?: unknown;
  readonly isControlRecord?: boolean;
  readonly batchContext: { readonly producerId: string | number; readonly inTransaction: boolean };
}

const ABORT_MARKER_KEY = Buffer.from([0, 0, 0, 0]);

/**
 * kafkajs's consumer/filterAbortedMessages, as the Java consumer filters: the records of a
 * read-committed fetch less those of aborted transactions. kafkajs takes at most one aborted
 * transaction into account per record, so when two or more began before a fetch's first record
 * (a processor killed with a transaction open on each of its producers, then fenced), the first
 * record of the second one was delivered: a read-committed reader saw an aborted decision, and a
 * restore would have loaded an aborted state (CI, test/guarantees.test.ts: one aborted decision
 * per kill). Here every aborted transaction that began at or before a record is in effect for
 * it, in order of first offset, until its producer's abort marker (a control record).
 */
export function filterAbortedMessages<M extends FetchedMessage>({
  messages,
  abortedTransactions,
}: {
  messages: M[];
  abortedTransactions?: ReadonlyArray<{ readonly producerId: string | number; readonly firstOffset: string | number }>;
}): M[] {
  if (abortedTransactions === undefined || abortedTransactions.length === 0) return messages;
  const pending = abortedTransactions
    .map((t) => ({ producerId: String(t.producerId), first: BigInt(t.firstOffset) }))
    .sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  const aborted = new Set<string>();
  let next = 0;
  return messages.filter((m) => {
    const offset = BigInt(m.offset);
    while (next < pending.length && pending[next]!.first <= offset) aborted.add(pending[next++]!.producerId);
    const producerId = String(m.batchContext.producerId);
    if (m.isControlRecord === true && Buffer.isBuffer(m.key) && m.key.equals(ABORT_MARKER_KEY)) {
      aborted.delete(producerId);
      return true; // kafkajs drops control records after this
    }
    return !(m.batchContext.inTransaction && aborted.has(producerId));
  });
}

/** kafkajs's RequestQueue, as far as its scheduling of pending-request checks goes. */
export interface RequestQueueLike {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
}

/** kafkajs's CHECK_PENDING_REQUESTS_INTERVAL. */
const CHECK_PENDING_MS = 10;

/**
 * RequestQueue#scheduleCheckPendingRequests without its empty timers. kafkajs's schedules the
 * next check `throttledUntil - now` ms ahead even when nothing is pending: with no throttle a
 * negative delay, which Node 24 reports as a TimeoutNegativeWarning (once per process), and a
 * check every millisecond for as long as a connection is idle (kafkajs#1751, #1704; unfixed in
 * 2.2.4). With nothing pending there is nothing to check: `push` schedules when it queues a
 * request, and every answer or timeout checks the queue again.
 */
export function scheduleCheckPendingRequests(this: RequestQueueLike): void {
  if (this.throttleCheckTimeoutId !== null || this.pending.length === 0) return;
  const throttled = this.throttledUntil - Date.now();
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    throttled > 0 ? throttled : CHECK_PENDING_MS,
  );
}

/** Puts `exports` in the module cache as the module at `file`, unless it is loaded already. */
function preload(file: string, exports: unknown): boolean {
  if (require.cache[file] !== undefined) return false;
  const m = new Module(file);
  m.filename = file;
  m.exports = exports;
  m.loaded = true;
  require.cache[file] = m;
  return true;
}

/** Whether the replacements are in place (false: another kafkajs version, or loaded first). */
export let kafkajsPatched = false;

function install(): void {
  let root: string;
  try {
    root = dirname(require.resolve('kafkajs/package.json'));
    if ((require('kafkajs/package.json') as { version?: string }).version !== PATCHED_VERSION) return;
  } catch {
    return;
  }
  const src = (p: string) => join(root, 'src', p);
  // A prototype method: replaced wherever the class was loaded from, before kafkajs or after.
  (require(src('network/requestQueue/index.js')) as { prototype: { scheduleCheckPendingRequests: unknown } }).prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  // kafkajs loads its producer (and with it these modules) when its index loads.
  const loaded = ['producer/sendMessages.js', 'protocol/requests/produce/v3/request.js', 'protocol/request.js'].some((f) => require.cache[src(f)] !== undefined);
  if (loaded) return;
  const recordFile = src('protocol/recordBatch/record/v0/index.js');
  const original = require(recordFile) as RecordEncoder;
  const Encoder = require(src('protocol/encoder.js')) as { prototype: object };
  delete require.cache[recordFile];
  const grouped = preload(src('producer/groupMessagesPerPartition.js'), groupMessagesPerPartition);
  const fastRecords = fastRecordEncoder(original);
  const records = preload(recordFile, fastRecords);
  const batchFile = src('protocol/recordBatch/v0/index.js');
  const batchModule = require(batchFile) as { RecordBatch: RecordBatchEncoder };
  delete require.cache[batchFile];
  const fastBatch = fastRecordBatch(batchModule.RecordBatch, Encoder as unknown as EncoderClass, crc32c);
  const batches = preload(batchFile, { ...batchModule, RecordBatch: fastBatch });
  const Long = require(src('utils/long.js')) as { fromInt(n: number): unknown };
  const produce = preload(
    src('protocol/requests/produce/v3/request.js'),
    produceRequestV3({
      Encoder: Encoder as unknown as new () => RequestEncoder,
      Record: fastRecords,
      RecordBatch: fastBatch,
      apiKey: (require(src('protocol/requests/apiKeys.js')) as { Produce: number }).Produce,
      longFromInt: (n) => Long.fromInt(n),
    }),
  );
  const framing = preload(src('protocol/request.js'), frameRequest(Encoder as unknown as new () => RequestEncoder));
  const aborted = require.cache[src('consumer/batch.js')] === undefined && preload(src('consumer/filterAbortedMessages.js'), filterAbortedMessages);
  kafkajsPatched = grouped && records && batches && produce && framing && aborted;
}

install();

/** kafkajs, loaded after the replacements are in place. */
export const kafkajs = require('kafkajs') as typeof kafkajsTypes;
