// One input partition at run time: decode, fold through its PartitionTask, then make the
// results durable in an order that makes a crash at any point harmless:
//   1. decisions and dead letters (acked by all in-sync replicas),
//   2. the changelog entries of the keys the batch changed (each carries its input offset),
//   3. the input offset commit.
// A crash before 2 re-folds the batch from the old state and re-emits identical decisions (same
// ids); a crash between 2 and 3 re-reads records whose offsets the restored state already
// holds, and the task skips them.
import { decisionCodec } from '../../schemas/codecs.js';
import { DecodeError, type SchemaCatalog } from '../../schemas/registry.js';
import type { Logger } from '../logger.js';
import type { PartitionTask, StoreEntry } from '../task.js';
import type { TopicNames } from '../topology.js';
import type { Batch, InRecord, OutRecord, Sender, TransactionalSender } from './kafka.js';
import type { NodeWiring } from './wiring.js';
import { NO_TELEMETRY, type Telemetry } from './telemetry.js';

export const DEAD_LETTER_HEADERS = {
  reason: 'loopguard.reason',
  error: 'loopguard.error',
  topic: 'loopguard.source.topic',
  partition: 'loopguard.source.partition',
  offset: 'loopguard.source.offset',
} as const;

/**
 * Written by `loopguard reset` into a changelog partition: decisions for input offsets below
 * the header's value are rebuilt into state but not published again.
 */
export const EMIT_FROM_KEY = '__loopguard.emit-from';
export const EMIT_FROM_HEADER = 'loopguard.emit-from';

export interface WorkerStats {
  events: number;
  decisions: number;
  deadLetters: number;
  replayed: number;
}

/** How a batch's outputs become durable together with its input offset. */
export interface BatchOutput {
  write(outputs: readonly OutRecord[], changelog: () => readonly OutRecord[], topic: string, partition: number, nextOffset: number): Promise<void>;
}

/** At-least-once: decisions, then changelog, then the offset commit, each awaited. */
export function atLeastOnce(sender: Sender, consumer: { commit(topic: string, partition: number, nextOffset: number): Promise<void> }): BatchOutput {
  return {
    async write(outputs, changelog, topic, partition, nextOffset) {
      await sender.send(outputs);
      await sender.send(changelog());
      await consumer.commit(topic, partition, nextOffset);
    },
  };
}

/** Exactly-once: decisions, changelog and the input offset in one transaction. */
export function exactlyOnce(tx: TransactionalSender, groupId: string): BatchOutput {
  return {
    write: (outputs, changelog, topic, partition, nextOffset) => tx.commit([...outputs, ...changelog()], { groupId, topic, partition, nextOffset }),
  };
}

export class PartitionWorker {
  readonly stats: WorkerStats = { events: 0, decisions: 0, deadLetters: 0, replayed: 0 };
  /** Input offsets below this are folded silently (a reset to a point in time rebuilds them). */
  private emitFrom = 0;

  constructor(
    readonly task: PartitionTask,
    private readonly wiring: NodeWiring,
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
    const entry = r.value === null ? null : await this.catalog.decode<StoreEntry>(r.value, this.wiring.state);
    this.task.restore(key, entry);
  }

  /** Processes a batch; returns the last offset handled (or undefined if none). */
  async processBatch(batch: Batch, output: BatchOutput): Promise<number | undefined> {
    const started = performance.now();
    const out: OutRecord[] = [];
    let last: InRecord | undefined;
    for (const r of batch.records) {
      if (!batch.isActive()) break;
      await this.processRecord(r, out);
      last = r;
    }
    if (last === undefined) return undefined;
    await output.write(out, () => this.changelogRecords(batch.partition), batch.topic, batch.partition, last.offset + 1);
    this.task.compact(last.offset + 1);
    const now = Date.now();
    for (const r of batch.records) { if (r.offset > last.offset) break; this.telemetry.latency(Math.max(0, now - r.timestamp) / 1000); }
    this.telemetry.batch((performance.now() - started) / 1000);
    this.telemetry.lag(batch.topic, batch.partition, Math.max(0, batch.highWatermark - last.offset - 1));
    return last.offset;
  }

  private async processRecord(r: InRecord, out: OutRecord[]): Promise<void> {
    if (r.offset < this.emitFrom) {
      // Rebuilding state after a reset: fold, publish nothing (it was published the first time).
      await this.fold(r, []);
      return;
    }
    await this.fold(r, out);
  }

  private async fold(r: InRecord, out: OutRecord[]): Promise<void> {
    if (r.value !== null && r.value.length > this.maxEventBytes) {
      out.push(this.deadLetter(r, 'oversized', `value is ${r.value.length} bytes, over the limit of ${this.maxEventBytes}`));
      return;
    }
    let value: Record<string, unknown>;
    try {
      value = await this.catalog.decode(r.value, this.wiring.input);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      out.push(this.deadLetter(r, e.reason, e.message));
      return;
    }
    const result = this.task.process({ topic: r.topic, partition: r.partition, offset: r.offset, value });
    switch (result.kind) {
      case 'invalid':
        out.push(this.deadLetter(r, 'invalid_event', result.reason));
        return;
      case 'replayed':
        this.stats.replayed++;
        return;
      case 'decided':
        this.stats.events++;
        this.telemetry.event(String(value.type));
        for (const d of result.decisions) {
          this.stats.decisions++;
          this.telemetry.decision(d.type, d.type === 'run_abort' ? d.type : d.decision, d.type === 'bot_decision' ? null : d.detector);
          out.push({ topic: this.topics.verdicts, partition: r.partition, key: d.key, value: this.catalog.encode(this.topics.verdicts, decisionCodec, d) });
        }
        return;
      default: {
        const unreachable: never = result;
        throw new Error(`unexpected task result ${JSON.stringify(unreachable)}`);
      }
    }
  }

  changelogRecords(partition: number): OutRecord[] {
    return this.task.drainDirty().map(([key, entry]) => ({
      topic: this.changelogTopic, partition, key,
      value: entry === null ? null : this.catalog.encode(this.changelogTopic, this.wiring.state, entry),
    }));
  }

  private deadLetter(r: InRecord, reason: string, error: string): OutRecord {
    this.stats.deadLetters++;
    this.telemetry.deadLetter(reason);
    this.log.warn({ reason, error, topic: r.topic, partition: r.partition, offset: r.offset }, 'event sent to the dead-letter topic');
    return {
      topic: this.topics.deadLetter, partition: 0, key: r.key, value: r.value,
      headers: {
        [DEAD_LETTER_HEADERS.reason]: reason, [DEAD_LETTER_HEADERS.error]: error, [DEAD_LETTER_HEADERS.topic]: r.topic,
        [DEAD_LETTER_HEADERS.partition]: String(r.partition), [DEAD_LETTER_HEADERS.offset]: String(r.offset),
      },
    };
  }
}
