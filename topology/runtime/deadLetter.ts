// The dead-letter topic: the input record as it came, with why it could not be decided in
// headers. One partition: dead letters are for people to read, not for ordering.
import type { InRecord, OutRecord } from './port.js';

export const DEAD_LETTER_HEADERS = {
  reason: 'loopguard.reason',
  error: 'loopguard.error',
  topic: 'loopguard.source.topic',
  partition: 'loopguard.source.partition',
  offset: 'loopguard.source.offset',
} as const;

export function deadLetter(deadLetterTopic: string, r: InRecord, reason: string, error: string): OutRecord {
  return {
    topic: deadLetterTopic, partition: 0, key: r.key, value: r.value,
    headers: {
      [DEAD_LETTER_HEADERS.reason]: reason, [DEAD_LETTER_HEADERS.error]: error, [DEAD_LETTER_HEADERS.topic]: r.topic,
      [DEAD_LETTER_HEADERS.partition]: String(r.partition), [DEAD_LETTER_HEADERS.offset]: String(r.offset),
    },
  };
}
