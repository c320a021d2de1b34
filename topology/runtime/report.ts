// What a committed batch tells operators: counters per event, decision and dead letter, and a
// log line per dead letter (an error, with the stack, when loopguard itself failed on it).
import { unreachable } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Folded } from './foldRecord.js';
import type { InRecord } from './port.js';
import { decisionLabels, type DecisionLabels, type Telemetry } from './telemetry.js';

export type FoldedRecords = ReadonlyArray<readonly [InRecord, Folded]>;

// Events and decisions are counted per batch and reported once per label set: prom-client
// hashes the labels of every call, which per record cost more than the counting.
export function reportFolded(folded: FoldedRecords, telemetry: Telemetry, log: Logger): void {
  const events = new Map<string, number>();
  const decisions = new Map<string, { labels: DecisionLabels; count: number }>();
  for (const [r, f] of folded) {
    switch (f.kind) {
      case 'dead':
        telemetry.deadLetter(f.reason);
        log[f.cause === undefined ? 'warn' : 'error'](
          { reason: f.reason, error: f.error, err: f.cause, topic: r.topic, partition: r.partition, offset: r.offset },
          'event sent to the dead-letter topic',
        );
        break;
      case 'replayed':
        break;
      case 'decided':
        events.set(f.eventType, (events.get(f.eventType) ?? 0) + 1);
        for (const d of f.decisions) {
          const labels = decisionLabels(d);
          const key = `${labels.type}\0${labels.decision}\0${labels.why ?? ''}\0${labels.why === null}\0${labels.shadow}`;
          const seen = decisions.get(key);
          if (seen === undefined) decisions.set(key, { labels, count: 1 });
          else seen.count++;
        }
        for (const what of f.drops) telemetry.stateDrop(r.topic, what);
        for (const t of f.trips) telemetry.trip(t.what, t.shadow);
        break;
      default:
        unreachable('folded record', f);
    }
  }
  for (const [type, count] of events) telemetry.event(type, count);
  for (const { labels, count } of decisions.values()) telemetry.decision(labels, count);
}
