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
  // Label sets in the order first seen (the order their series appear in), found again by
  // their parts rather than a key string built per decision.
  const decisions: Array<{ labels: DecisionLabels; count: number }> = [];
  const byLabels = new Map<string, Map<string, Map<string | null, Array<{ labels: DecisionLabels; count: number } | undefined>>>>();
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
          let byDecision = byLabels.get(labels.type);
          if (byDecision === undefined) byLabels.set(labels.type, (byDecision = new Map()));
          let byWhy = byDecision.get(labels.decision);
          if (byWhy === undefined) byDecision.set(labels.decision, (byWhy = new Map()));
          let byShadow = byWhy.get(labels.why);
          if (byShadow === undefined) byWhy.set(labels.why, (byShadow = [undefined, undefined]));
          const at = labels.shadow ? 1 : 0;
          const seen = byShadow[at];
          if (seen === undefined) decisions.push((byShadow[at] = { labels, count: 1 }));
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
  for (const { labels, count } of decisions) telemetry.decision(labels, count);
}
