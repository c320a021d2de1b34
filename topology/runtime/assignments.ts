// The input partitions this instance holds, each with its PartitionWorker (task + store) and
// sink. A newly assigned partition restores its store from its changelog partition before it
// processes anything; a revoked one is dropped, so getting it back later means restoring
// again from what its other owner wrote.
import { setTimeout as delay } from 'node:timers/promises';
import type { SchemaCatalog } from '../../schemas/registry.js';
import { ERROR_CODES, LoopguardError } from '../errors.js';
import type { Logger } from '../logger.js';
import { PartitionTask } from '../task.js';
import type { Topology } from '../topology.js';
import { PartitionWorker } from './partitionWorker.js';
import type { KafkaSession, Sink } from './port.js';
import type { Telemetry } from './telemetry.js';

export interface Assigned {
  readonly worker: PartitionWorker;
  readonly sink: Sink;
  close(): Promise<void>;
}

export interface AssignmentDeps {
  readonly topology: Topology;
  readonly kafka: KafkaSession;
  readonly catalog: SchemaCatalog;
  readonly log: Logger;
  readonly telemetry: Telemetry;
  readonly maxEventBytes: number;
  /** The sink of partition p: the shared at-least-once one, or p's own transactional one. */
  sinkFor(topic: string, partition: number): Promise<{ sink: Sink; close(): Promise<void> }>;
  /** Called whenever the number of restores in flight changes (each covers one or more partitions). */
  onRestoring(count: number): void;
}

const tp = (topic: string, partition: number) => `${topic}/${partition}`;
const RETRY_RESTORE_MS = 2_000;

export class Assignments {
  private readonly held = new Map<string, Promise<Assigned>>();
  private restoring = 0;
  /** Aborts every restore in flight once the processor stops. */
  private readonly stopping = new AbortController();

  constructor(private readonly deps: AssignmentDeps) {}

  get(topic: string, partition: number): Promise<Assigned> | undefined {
    return this.held.get(tp(topic, partition));
  }

  assign(topic: string, partitions: readonly number[]): void {
    const fresh = partitions.filter((p) => !this.held.has(tp(topic, p)));
    if (fresh.length > 0) this.restore(topic, fresh);
  }

  revoke(topic: string, partitions: readonly number[]): void {
    for (const p of partitions) {
      const assigned = this.held.get(tp(topic, p));
      if (assigned === undefined) continue;
      this.held.delete(tp(topic, p));
      void assigned.then(
        (a) => a.close(),
        () => undefined,
      );
    }
  }

  /**
   * Drops the store of a partition whose batch failed after the store took it in, and restores
   * it again from what the changelog has, unless it changed hands meanwhile.
   */
  async reset(topic: string, partition: number, failed: Promise<Assigned>): Promise<void> {
    if (this.held.get(tp(topic, partition)) !== failed || this.stopping.signal.aborted) return;
    this.held.delete(tp(topic, partition));
    await failed.then(
      (a) => a.close(),
      () => undefined,
    );
    this.restore(topic, [partition]);
  }

  /** Gives up restores in flight: a batch waiting for one sees it fail, and nothing restores again. */
  abort(): void {
    this.stopping.abort();
  }

  async closeAll(): Promise<void> {
    this.abort();
    const all = [...this.held.values()];
    this.held.clear();
    for (const a of all)
      await a.then(
        (x) => x.close(),
        () => undefined,
      );
  }

  // Restores all newly assigned partitions of one input topic with one changelog read. Under
  // exactly-once each partition first gets its transactional sink, which fences a zombie
  // predecessor and aborts its open transaction, so the read-committed restore sees
  // everything that will ever be committed for the partition.
  private restore(topic: string, partitions: number[]): void {
    const { topology, kafka, catalog, log, telemetry, maxEventBytes } = this.deps;
    const node = topology.nodeForTopic(topic);
    if (node === undefined) throw new LoopguardError(ERROR_CODES.internal, `assigned ${topic}, which no processor reads`, { topic });
    const started = Date.now();
    this.deps.onRestoring(++this.restoring);
    const ready = (async () => {
      const assigned = new Map<number, Assigned>();
      try {
        for (const p of partitions) {
          const worker = new PartitionWorker(
            new PartitionTask(node, p, { maxFutureSkewMs: topology.limits.maxFutureSkewMs, now: Date.now }),
            catalog,
            topology.topics,
            maxEventBytes,
            log.child({ topic, partition: p }),
            telemetry,
          );
          const { sink, close } = await this.deps.sinkFor(topic, p);
          assigned.set(p, { worker, sink, close });
        }
        log.info({ topic, partitions }, 'restoring state from changelog');
        const records = await kafka.readToEnd(node.store.changelogTopic, partitions, (r) => assigned.get(r.partition)!.worker.restoreRecord(r), this.stopping.signal);
        log.info({ topic, partitions, records, ms: Date.now() - started }, 'state restored from changelog');
        telemetry.restored(topic, (Date.now() - started) / 1000, records);
        return assigned;
      } catch (e) {
        for (const a of assigned.values()) await a.close().catch(() => undefined);
        throw e;
      }
    })();
    const held = partitions.map((p) => [p, ready.then((a) => a.get(p)!)] as const);
    for (const [p, one] of held) {
      one.catch(() => undefined); // awaited by batches; a restore nobody waits for may fail too
      this.held.set(tp(topic, p), one);
    }
    // A failed restore is tried again after a pause (or sooner, by a batch of the partition);
    // the instance stays not ready until the new attempt has begun.
    const done = () => this.deps.onRestoring(--this.restoring);
    ready.then(done, async (e: unknown) => {
      if (!this.stopping.signal.aborted) {
        log.warn({ err: e, topic, partitions }, 'restoring state failed; retrying');
        await delay(RETRY_RESTORE_MS * (0.5 + Math.random()));
        for (const [p, one] of held) await this.reset(topic, p, one);
      }
      done();
    });
  }
}
