// What a committed batch tells operators: counters per event, decision and dead letter, and a
// log line per dead letter (an error, with the stack, when loopguard itself failed on it).
import { unreachable } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Folded } from './foldRecord.js';
import type { InRecord } from './port.js';
import { decisionLabels, type DecisionLabels, type Telemetry } from './telemetry.js';

export type FoldedRecords = ReadonlyArray<readonly [InRecord, Folded]>;

/** What a slice of a batch did, gathered record by record, reported once its batch is committed. */
export class SliceReport {
  private readonly events = new Map<string, number>();
  // Label sets in the order first seen (the order their series appear in), found again by
  // their parts rather than a key string built per decision.
  private readonly decisions: Array<{ labels: DecisionLabels; count: number }> = [];
  private readonly byLabels = new Map<string, Map<string, Map<string | null, Array<{ labels: DecisionLabels; count: number } | undefined>>>>();
  private readonly drops: Array<readonly [string, string]> = [];
  private readonly trips: Array<readonly [string, boolean]> = [];
  /** Dead letters, few: each is logged with its record. */
  private readonly dead: Array<readonly [InRecord, Extract<Folded, { kind: 'dead' }>]> = [];
  /** Each record's timestamp, for its latency once committed. */
  private readonly timestamps: number[] = [];

  /** Counts `r`'s result; keeps of it only what the report needs (the result itself can go). */
  add(r: InRecord, f: Folded): void {
    this.timestamps.push(r.timestamp);
    switch (f.kind) {
      case 'dead':
        this.dead.push([r, f]);
        break;
      case 'replayed':
        break;
      case 'decided':
        this.events.set(f.eventType, (this.events.get(f.eventType) ?? 0) + 1);
        for (const d of f.decisions) this.countDecision(decisionLabels(d));
        for (const what of f.drops) this.drops.push([r.topic, what]);
        for (const t of f.trips) this.trips.push([t.what, t.shadow]);
        break;
      default:
        unreachable('folded record', f);
    }
  }

  private countDecision(labels: DecisionLabels): void {
    let byDecision = this.byLabels.get(labels.type);
    if (byDecision === undefined) this.byLabels.set(labels.type, (byDecision = new Map()));
    let byWhy = byDecision.get(labels.decision);
    if (byWhy === undefined) byDecision.set(labels.decision, (byWhy = new Map()));
    let byShadow = byWhy.get(labels.why);
    if (byShadow === undefined) byWhy.set(labels.why, (byShadow = [undefined, undefined]));
    const at = labels.shadow ? 1 : 0;
    const seen = byShadow[at];
    if (seen === undefined) this.decisions.push((byShadow[at] = { labels, count: 1 }));
    else seen.count++;
  }

  /** Reports what was added: counters, dead-letter log lines, and with `now` each record's latency from its timestamp. */
  emit(telemetry: Telemetry, log: Logger, now?: number): void {
    for (const [r, f] of this.dead) {
      telemetry.deadLetter(f.reason);
      log[f.cause === undefined ? 'warn' : 'error'](
        { reason: f.reason, error: f.error, err: f.cause, topic: r.topic, partition: r.partition, offset: r.offset },
        'event sent to the dead-letter topic',
      );
    }
    for (const [topic, what] of this.drops) telemetry.stateDrop(topic, what);
    for (const [what, shadow] of this.trips) telemetry.trip(what, shadow);
    for (const [type, count] of this.events) telemetry.event(type, count);
    for (const { labels, count } of this.decisions) telemetry.decision(labels, count);
    if (now !== undefined) for (const ts of this.timestamps) telemetry.latency(Math.max(0, now - ts) / 1000);
  }
}

// Events and decisions are counted per batch and reported once per label set: prom-client
// hashes the labels of every call, which per record cost more than the counting.
export function reportFolded(folded: FoldedRecords, telemetry: Telemetry, log: Logger): void {
  const report = new SliceReport();
  for (const [r, f] of folded) report.add(r, f);
  report.emit(telemetry, log);
}
