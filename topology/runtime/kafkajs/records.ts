// Plain records to and from kafkajs messages.
import type { IHeaders, TopicMessages } from 'kafkajs';
import type { InRecord, OutRecord } from '../port.js';

/** Kept well under the broker's default message.max.bytes (1 MiB) per produce request. */
const MAX_REQUEST_BYTES = 512 * 1024;

/** Consecutive runs of `records` of at most MAX_REQUEST_BYTES each (a bigger record goes alone). */
export function* chunks(records: readonly OutRecord[]): Generator<readonly OutRecord[]> {
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const size = (r.value?.length ?? 0) + (typeof r.key === 'string' ? Buffer.byteLength(r.key) : (r.key?.length ?? 0)) + 64;
    if (bytes + size > MAX_REQUEST_BYTES && i > start) {
      yield records.slice(start, i);
      start = i;
      bytes = 0;
    }
    bytes += size;
  }
  if (start < records.length) yield records.slice(start);
}

export function topicMessages(records: readonly OutRecord[]): TopicMessages[] {
  const byTopic = new Map<string, OutRecord[]>();
  for (const r of records) {
    let l = byTopic.get(r.topic);
    if (!l) byTopic.set(r.topic, (l = []));
    l.push(r);
  }
  // The records are kafkajs messages as they are (it reads partition, key, value and headers,
  // and copies each message before encoding it): no copy of each here too.
  return [...byTopic].map(([topic, rs]) => ({ topic, messages: rs as Array<OutRecord & { headers?: IHeaders }> }));
}

/** The headers of every record that has none (most): one object, not one per record. */
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

const headersOf = (h: IHeaders | undefined): Readonly<Record<string, string>> => {
  if (h === undefined) return NO_HEADERS;
  let any = false;
  for (const _ in h) {
    any = true;
    break;
  }
  if (!any) return NO_HEADERS;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) if (v !== undefined) out[k] = Array.isArray(v) ? String(v[0]) : String(v);
  return out;
};

export const toInRecord = (topic: string, partition: number, m: { offset: string; key: Buffer | null; value: Buffer | null; timestamp: string; headers?: IHeaders }): InRecord => ({
  topic,
  partition,
  offset: Number(m.offset),
  key: m.key,
  value: m.value,
  timestamp: Number(m.timestamp),
  headers: headersOf(m.headers),
});
