// One input partition at run time: decode, fold through its PartitionTask, then make the
// results durable through a Sink in an order that makes a crash at any point harmless:
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
    const entry = r.value === null ? null : await this.catalog.decode<StoreEntry>(r.value, this.task.node.codecs.state);
    this.task.restore(key, entry);
  }

  /** Processes a batch; returns the last offset handled (or undefined if none). */
  async processBatch(batch: Batch, sink: Sink): Promise<number | undefined> {
    const started = performance.now();
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
    if (r.value !== null && r.value.length > this.maxEventBytes) {
      out.push(this.deadLetter(r, 'oversized', `value is ${r.value.length} bytes, over the limit of ${this.maxEventBytes}`));
      return;
    }
    let value: Record<string, unknown>;
    try {
      value = await this.catalog.decode(r.value, this.task.node.codecs.input);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      out.push(this.deadLetter(r, e.reason, e.message));
      return;
    }
    const result = this.task.process({ topic: r.topic, partition: r.partition, offset: r.offset, value });
    switch (result.kind) {
      case 'invalid':
        out.push(this.deadLetter(r, result.code, result.reason));
        return;
      case 'replayed':
        return;
      case 'decided':
        this.telemetry.event(String(value.type));
        for (const d of result.decisions) {
          this.telemetry.decision(d.type, d.type === 'run_abort' ? d.type : d.decision, d.type === 'bot_decision' ? null : d.detector);
          out.push({ topic: this.topics.verdicts, partition: r.partition, key: d.key, value: this.catalog.encode(this.topics.verdicts, this.task.node.codecs.output, d) });
        }
        return;
      default:
        return unreachable('task result', result);
    }
  }

  changelogRecords(partition: number): OutRecord[] {
    return this.task.drainDirty().map(([key, entry]) => ({
      topic: this.changelogTopic, partition, key,
      value: entry === null ? null : this.catalog.encode(this.changelogTopic, this.task.node.codecs.state, entry),
    }));
  }

  private deadLetter(r: InRecord, reason: string, error: string): OutRecord {
    this.telemetry.deadLetter(reason);
    this.log.warn({ reason, error, topic: r.topic, partition: r.partition, offset: r.offset }, 'event sent to the dead-letter topic');
    return deadLetter(this.topics.deadLetter, r, reason, error);
  }
}
