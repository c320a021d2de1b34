// At-least-once input offsets, committed off the batch's path: a batch whose outputs are
// acknowledged leaves its position here and returns, and one OffsetCommit at a time carries
// every partition's latest position. A commit that fails (a rebalance, a coordinator moving)
// is not retried: the next batch of the partition brings a newer position, and until then a
// restart re-reads records whose changelog entries are already durable, which the task skips.
import type { Logger } from '../logger.js';
import type { InputPosition } from './port.js';

/** Commits the positions; false when it did not try (the consumer is leaving its group). */
type CommitFn = (positions: readonly InputPosition[]) => Promise<boolean>;

const tp = (topic: string, partition: number) => `${topic}\t${partition}`;

export class OffsetCommitter {
  private pending = new Map<string, InputPosition>();
  private readonly done = new Map<string, number>();
  private inFlight: Promise<void> | undefined;

  constructor(
    private readonly commit: CommitFn,
    private readonly log: Logger,
  ) {}

  /** Queues `position` for the next commit; starts one unless one is in flight. */
  add(position: InputPosition): void {
    this.pending.set(tp(position.topic, position.partition), position);
    this.inFlight ??= this.drain();
  }

  /** Resolves once nothing is queued or in flight. */
  async flush(): Promise<void> {
    while (this.inFlight !== undefined) await this.inFlight;
  }

  committedOffset(topic: string, partition: number): number | undefined {
    return this.done.get(tp(topic, partition));
  }

  private async drain(): Promise<void> {
    while (this.pending.size > 0) {
      const positions = [...this.pending.values()];
      this.pending = new Map();
      try {
        if (!(await this.commit(positions))) continue;
        for (const p of positions) {
          const k = tp(p.topic, p.partition);
          this.done.set(k, Math.max(this.done.get(k) ?? -1, p.nextOffset));
        }
      } catch (e) {
        this.log.info(
          { err: (e as Error).message, partitions: positions.map((p) => `${p.topic}/${p.partition}`) },
          'committing input offsets failed; the next batch commits again',
        );
      }
    }
    this.inFlight = undefined;
  }
}
