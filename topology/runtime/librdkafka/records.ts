// Plain records to and from librdkafka messages.
import type { Message, MessageHeader } from '@confluentinc/kafka-javascript';
import type { InRecord } from '../port.js';

/** The headers of every record that has none (most): one object, not one per record. */
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** librdkafka gives headers as a list of one-key objects; the port keeps the first value of each key. */
function headersOf(h: MessageHeader[] | undefined): Readonly<Record<string, string>> {
  if (h === undefined || h.length === 0) return NO_HEADERS;
  const out: Record<string, string> = {};
  for (const one of h) for (const [k, v] of Object.entries(one)) if (!(k in out)) out[k] = String(v);
  return out;
}

export function toInRecord(m: Message): InRecord {
  const key = m.key;
  return {
    topic: m.topic,
    partition: m.partition,
    offset: m.offset,
    key: key === undefined || key === null ? null : typeof key === 'string' ? Buffer.from(key) : key,
    value: m.value,
    timestamp: m.timestamp ?? 0,
    headers: headersOf(m.headers),
  };
}

/** The port's headers as librdkafka's list (undefined: none). */
export function headerList(h: Readonly<Record<string, string>> | undefined): MessageHeader[] | undefined {
  if (h === undefined) return undefined;
  const keys = Object.keys(h);
  return keys.length === 0 ? undefined : keys.map((k) => ({ [k]: h[k]! }));
}
