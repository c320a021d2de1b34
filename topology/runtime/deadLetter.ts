// The dead-letter topic: the input record as it came, with why it could not be decided in its
// headers. One partition: dead letters are for people to read, not for ordering.
import { MAX_RECORD_BYTES, type InRecord, type OutRecord } from './port.js';

export const DEAD_LETTER_HEADERS = {
  reason: 'loopguard.reason',
  error: 'loopguard.error',
  topic: 'loopguard.source.topic',
  partition: 'loopguard.source.partition',
  offset: 'loopguard.source.offset',
} as const;

/** Why a record went to the dead-letter topic, besides the decoder's own reasons. */
export const DEAD_LETTER_REASONS = {
  oversized: 'oversized',
  invalid: 'invalid_event',
  processingFailed: 'processing_failed',
  encodeFailed: 'encode_failed',
  stateTooLarge: 'state_too_large',
  decisionTooLarge: 'decision_too_large',
} as const;

/** Headers leave room under MAX_RECORD_BYTES; a value too big to go with them is left out. */
const HEADER_ROOM = 16 * 1024;

export function deadLetter(deadLetterTopic: string, r: InRecord, reason: string, error: string): OutRecord {
  const fits = (r.value?.length ?? 0) + (r.key?.length ?? 0) + HEADER_ROOM <= MAX_RECORD_BYTES;
  return {
    topic: deadLetterTopic,
    partition: 0,
    key: r.key,
    value: fits ? r.value : null,
    headers: {
      [DEAD_LETTER_HEADERS.reason]: reason,
      [DEAD_LETTER_HEADERS.error]: error.slice(0, 4096),
      [DEAD_LETTER_HEADERS.topic]: r.topic,
      [DEAD_LETTER_HEADERS.partition]: String(r.partition),
      [DEAD_LETTER_HEADERS.offset]: String(r.offset),
    },
  };
}
