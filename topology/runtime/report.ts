// What a committed batch tells operators: counters per event, decision and dead letter, and a
// log line per dead letter (an error, with the stack, when loopguard itself failed on it).
import { unreachable } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Folded } from './foldRecord.js';
import type { InRecord } from './port.js';
import { decisionLabels, type Telemetry } from './telemetry.js';

export type FoldedRecords = ReadonlyArray<readonly [InRecord, Folded]>;

export function reportFolded(folded: FoldedRecords, telemetry: Telemetry, log: Logger): void {
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
        telemetry.event(f.eventType);
        for (const d of f.decisions) telemetry.decision(decisionLabels(d));
        for (const what of f.drops) telemetry.stateDrop(r.topic, what);
        for (const t of f.trips) telemetry.trip(t.what, t.shadow);
        break;
      default:
        unreachable('folded record', f);
    }
  }
}
