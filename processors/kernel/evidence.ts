// What a decision that acts names as its grounds (docs/behaviour.md §4.5). Tool and bot
// decisions travel on one topic, so they share one Avro record: tool decisions fill
// `toolCallIds` and `since`, bot decisions `since`, `count` and `senders`.
import { f, type Shape } from './contract.js';

/** At most this many tool call ids are listed (the newest). */
export const MAX_EVIDENCE_IDS = 20;
/** Bot evidence lists distinct senders of a bounded window (§1 Limits: 501 events). */
export const MAX_EVIDENCE_SENDERS = 1000;

const EVIDENCE_FIELDS = {
  since: f.long('Event time of the first event behind the count, epoch ms.'),
  toolCallIds: f.optional(f.list(f.text(), MAX_EVIDENCE_IDS, 'Tool decisions: the toolCallIds behind the count, oldest first, at most the newest 20.')),
  count: f.optional(f.count('Bot decisions: how many events the window held.')),
  senders: f.optional(f.list(f.text(), MAX_EVIDENCE_SENDERS, 'Bot decisions: the distinct senders, sorted.')),
} as const;

export const EVIDENCE = f.record('Evidence', EVIDENCE_FIELDS, 'What the count is made of (warn, block, suppress, run_abort).');

export type Evidence = Shape<typeof EVIDENCE_FIELDS>;
