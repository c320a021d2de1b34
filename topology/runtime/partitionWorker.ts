// One input partition at run time: each record folded through its PartitionTask (see
// foldRecord.ts), then the results made durable through a Sink in an order that makes a
// crash at any point harmless:
//   1. decisions and dead letters (acked by all in-sync replicas),
//   2. the changelog entries of the keys the batch changed (each carries its input offset),
//   3. the input offset commit.
// A crash before 2 re-folds the batch from the old state and re-emits identical decisions (same
// ids); a crash between 2 and 3 re-reads records whose offsets the restored state already
// holds, and the task skips them. Under exactly-once the sink makes all three one transaction.
import { DecodeError, type SchemaCatalog } from '../../schemas/registry.js';
import { unreachable } from '../errors.js';
import type { Logger } from '../logger.js';
import type { PartitionTask, StoreEntry } from '../task.js';
import type { TopicNames } from '../topology.js';
import { deadLetter } from './deadLetter.js';
import { foldRecord } from './foldRecord.js';
import type { Batch, InRecord, OutRecord, Sink } from './port.js';
import { NO_TELEMETRY, type Telemetry } from './telemetry.js';

/**
 * Written by `loopguard reset` into a changelog partition: decisions for input offsets below
 * the header's value are rebuilt into state but not published again.
 */
export const EMIT_FROM_KEY = '__loopguard.emit-from';
export const EMIT_FROM_HEADER = 'loopguard.emit-from';

export class PartitionWorker {
  /** Input offsets below this are folded silently (a reset to a point in time rebuilds them). */
  private emitFrom = 0;
  /** Changelog values encoded per record this batch, reused while the key's entry is unchanged. */
  private readonly encoded = new Map<string, { entry: StoreEntry; value: Buffer }>();

  constructor(
    readonly task: PartitionTask,
    private readonly catalog: SchemaCatalog,
    private readonly topics: TopicNames,
    private readonly maxEventBytes: number,
    private readonly log: Logger,
    private readonly telemetry: Telemetry = NO_TELEMETRY,
  ) {}

  get changelogTopic(): string { return this.task.node.store.changelogTopic; }

  /** Loads one changelog record into the store (restore). */
  async restoreRecord(r: InRecord): Promise<void> {
    const key = r.key?.toString('utf8') ?? '';
    if (key === EMIT_FROM_KEY) { this.emitFrom = Number(r.headers[EMIT_FROM_HEADER] ?? 0); return; }
    try {
      this.task.restore(key, r.value === null ? null : await this.catalog.decode<StoreEntry>(r.value, this.task.node.codecs.state));
    } catch (e) {
      // A changelog entry nobody can read must not keep the partition from ever restoring: the
      // key keeps what earlier entries gave it, and records after that offset fold again.
      if (!(e instanceof DecodeError)) throw e;
      this.log.error({ key, offset: r.offset, reason: e.reason, err: e.message }, 'unreadable changelog entry skipped');
    }
  }

  /** Processes a batch; returns the last offset handled (or undefined if none). */
  async processBatch(batch: Batch, sink: Sink): Promise<number | undefined> {
    const started = performance.now();
    // Output schemas are registered before any partition is assigned; missing ones are a bug,
    // to fail the batch here rather than dead-letter every record.
    this.catalog.idFor(this.topics.verdicts);
    this.catalog.idFor(this.changelogTopic);
    this.encoded.clear();
    const out: OutRecord[] = [];
    let last: InRecord | undefined;
    for (const r of batch.records) {
      if (!batch.isActive()) break;
      // Rebuilding state after a reset: fold, publish nothing (it was published the first time).
      await this.fold(r, r.offset < this.emitFrom ? [] : out);
      last = r;
    }
    if (last === undefined) return undefined;
    await sink.commit([out, this.changelogRecords(batch.partition)], { topic: batch.topic, partition: batch.partition, nextOffset: last.offset + 1 });
    this.task.compact(last.offset + 1);
    const now = Date.now();
    for (const r of batch.records) { if (r.offset > last.offset) break; this.telemetry.latency(Math.max(0, now - r.timestamp) / 1000); }
    this.telemetry.batch((performance.now() - started) / 1000);
    this.telemetry.lag(batch.topic, batch.partition, Math.max(0, batch.highWatermark - last.offset - 1));
    return last.offset;
  }

  private async fold(r: InRecord, out: OutRecord[]): Promise<void> {
    const f = await foldRecord(this.task, this.catalog, this.topics, this.maxEventBytes, r);
    switch (f.kind) {
      case 'dead':
        this.telemetry.deadLetter(f.reason);
        this.log[f.cause === undefined ? 'warn' : 'error']({ reason: f.reason, error: f.error, err: f.cause, topic: r.topic, partition: r.partition, offset: r.offset }, 'event sent to the dead-letter topic');
        out.push(deadLetter(this.topics.deadLetter, r, f.reason, f.error));
        return;
      case 'replayed':
        return;
      case 'decided':
        this.telemetry.event(f.eventType);
        for (const d of f.decisions) this.telemetry.decision(d.type, String(d.decision ?? d.type), (d.detector as string | null | undefined) ?? null);
        out.push(...f.outputs);
        this.encoded.set(f.key, { entry: f.entry, value: f.state });
        return;
      default:
        return unreachable('folded record', f);
    }
  }

  /** The changed keys' entries, encoded once per batch at most (most were, by their record). */
  changelogRecords(partition: number): OutRecord[] {
    const records = this.task.drainDirty().map(([key, entry]): OutRecord => {
      const known = this.encoded.get(key);
      const value = entry === null ? null : known?.entry === entry ? known.value : this.catalog.encode(this.changelogTopic, this.task.node.codecs.state, entry);
      return { topic: this.changelogTopic, partition, key, value };
    });
    this.encoded.clear();
    return records;
  }
}
