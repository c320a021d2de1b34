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
import type { Batch, InRecord, OutRecord, Sender } from './kafka.js';
import type { NodeWiring } from './wiring.js';

export const DEAD_LETTER_HEADERS = {
  reason: 'loopguard.reason',
  error: 'loopguard.error',
  topic: 'loopguard.source.topic',
  partition: 'loopguard.source.partition',
  offset: 'loopguard.source.offset',
} as const;

export interface WorkerStats {
  events: number;
  decisions: number;
  deadLetters: number;
  replayed: number;
}

export interface Committer {
  commit(topic: string, partition: number, nextOffset: number): Promise<void>;
}

export class PartitionWorker {
  readonly stats: WorkerStats = { events: 0, decisions: 0, deadLetters: 0, replayed: 0 };

  constructor(
    readonly task: PartitionTask,
    private readonly wiring: NodeWiring,
    private readonly catalog: SchemaCatalog,
    private readonly topics: TopicNames,
    private readonly maxEventBytes: number,
    private readonly log: Logger,
  ) {}

  get changelogTopic(): string { return this.task.node.store.changelogTopic; }

  /** Loads one changelog record into the store (restore). */
  async restoreRecord(r: InRecord): Promise<void> {
    const key = r.key?.toString('utf8') ?? '';
    const entry = r.value === null ? null : await this.catalog.decode<StoreEntry>(r.value, this.wiring.state);
    this.task.restore(key, entry);
  }

  /** Processes a batch; returns the last offset handled (or undefined if none). */
  async processBatch(batch: Batch, sender: Sender, committer: Committer): Promise<number | undefined> {
    const out: OutRecord[] = [];
    let last: number | undefined;
    for (const r of batch.records) {
      if (!batch.isActive()) break;
      await this.processRecord(r, out);
      last = r.offset;
    }
    if (last === undefined) return undefined;
    await sender.send(out);
    await sender.send(this.changelogRecords(batch.partition));
    await committer.commit(batch.topic, batch.partition, last + 1);
    this.task.compact(last + 1);
    return last;
  }

  private async processRecord(r: InRecord, out: OutRecord[]): Promise<void> {
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
        for (const d of result.decisions) {
          this.stats.decisions++;
          out.push({ topic: this.topics.verdicts, partition: r.partition, key: d.key, value: this.catalog.encode(this.topics.verdicts, decisionCodec, d as Record<string, unknown>) });
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
