// Two kafkajs 2.2.4 internals on the produce path, replaced by versions that give the same
// results in linear time and without per-byte allocations. Measured on `loopguard run` at
// at-least-once (bench/README.md, issue 11), they were a quarter of its CPU:
// - producer/groupMessagesPerPartition copies a partition's array for every message it adds
//   (`[...current, message]`): quadratic in the records of one partition in one request, and
//   a ~2,000-record request of one partition allocated ~16 MB of arrays for the collector;
// - the record encoder (protocol/recordBatch/record/v0) zero-fills a 512-byte buffer per record,
//   makes a Buffer per varint, and sizes and writes the timestamp delta with 64-bit Long objects.
// kafkajs binds both with `require` when it loads, so they are put in the module cache before
// it does: the adapter takes kafkajs from `kafkajs` below, required only after that (an `import`
// would be hoisted above it, here or in a bundle). When kafkajs is another version, or was
// loaded before this ran, nothing is replaced: the originals are slower, never different.
// patches.spec.ts checks the replacements byte for byte against the originals.
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
 * A record encoder giving kafkajs's bytes: the common record (no headers, key and value a
 * Buffer, a string or null, deltas within 32 bits) is written into one buffer of its exact size;
 * any other goes to kafkajs's own encoder.
 */
export function fastRecordEncoder(original: RecordEncoder, encoderPrototype: object): RecordEncoder {
  return (r) => {
    const { offsetDelta = 0, timestampDelta = 0, key, value, headers } = r;
    if (!isInt32(offsetDelta) || !isInt32(timestampDelta) || !plainBytes(key) || !plainBytes(value) || !noHeaders(headers)) return original(r);
    const keyBytes = sizeOf(key);
    const valueBytes = sizeOf(value);
    const ts = zigZag(timestampDelta);
    const od = zigZag(offsetDelta);
    const kz = zigZag(keyBytes);
    const vz = zigZag(valueBytes);
    // attributes, timestamp delta, offset delta, key, value, header count (0)
    const body = 1 + varIntSize(ts) + varIntSize(od) + varIntSize(kz) + Math.max(0, keyBytes) + varIntSize(vz) + Math.max(0, valueBytes) + 1;
    const bz = zigZag(body);
    const buf = Buffer.allocUnsafe(varIntSize(bz) + body);
    let at = writeVarInt(buf, 0, bz);
    buf[at++] = 0;
    at = writeVarInt(buf, at, ts);
    at = writeVarInt(buf, at, od);
    at = writeVarInt(buf, at, kz);
    if (typeof key === 'string') at += buf.write(key, at, keyBytes, 'utf8');
    else if (!isNil(key)) at += key.copy(buf, at);
    at = writeVarInt(buf, at, vz);
    if (typeof value === 'string') at += buf.write(value, at, valueBytes, 'utf8');
    else if (!isNil(value)) at += value.copy(buf, at);
    buf[at++] = 0;
    const encoder = Object.create(encoderPrototype) as EncoderLike;
    encoder.buf = buf;
    encoder.offset = at;
    return encoder;
  };
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
  // kafkajs loads its producer (and with it both modules) when its index loads.
  if (require.cache[src('producer/sendMessages.js')] !== undefined || require.cache[src('protocol/requests/produce/v3/request.js')] !== undefined) return;
  const recordFile = src('protocol/recordBatch/record/v0/index.js');
  const original = require(recordFile) as RecordEncoder;
  const Encoder = require(src('protocol/encoder.js')) as { prototype: object };
  delete require.cache[recordFile];
  const grouped = preload(src('producer/groupMessagesPerPartition.js'), groupMessagesPerPartition);
  const records = preload(recordFile, fastRecordEncoder(original, Encoder.prototype));
  kafkajsPatched = grouped && records;
}

install();

/** kafkajs, loaded after the replacements are in place. */
export const kafkajs = require('kafkajs') as typeof kafkajsTypes;
