// `loopguard run`: one consumer group over the input topics, one PartitionWorker (task + store)
// per assigned input partition. A newly assigned partition restores its store from its
// changelog partition before it processes anything; a revoked one is dropped, so getting it
// back later means restoring again from what its other owner wrote.
import { setTimeout as delay } from 'node:timers/promises';
import type { SchemaCatalog } from '../../schemas/registry.js';
import type { LoopguardConfig } from '../config.js';
import { ERROR_CODES, LoopguardError } from '../errors.js';
import type { Logger } from '../logger.js';
import { PartitionTask } from '../task.js';
import type { Topology } from '../topology.js';
import type { Batch, GroupConsumer, KafkaSession, Sender } from './kafka.js';
import { PartitionWorker, atLeastOnce, exactlyOnce, type BatchOutput } from './partitionWorker.js';
import { registerSchemas, topicSpecs, wiringOf } from './wiring.js';
import { NO_TELEMETRY, type Telemetry } from './telemetry.js';

interface Assigned {
  readonly worker: PartitionWorker;
  readonly output: BatchOutput;
  close(): Promise<void>;
}

export interface ProcessorOptions {
  readonly maxEventBytes: number;
  readonly registryAttempts: number;
}

const tp = (topic: string, partition: number) => `${topic}/${partition}`;

export class StreamProcessor {
  private readonly workers = new Map<string, Promise<Assigned>>();
  private sender: Sender | undefined;
  private consumer: GroupConsumer | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  private readonly log: Logger;
  private joined = false;
  private restoring = 0;
  /** Called when the consumer dies of an error it will not retry. */
  onFatal: (error: Error) => void = () => {};

  constructor(
    private readonly config: LoopguardConfig,
    private readonly topology: Topology,
    private readonly kafka: KafkaSession,
    private readonly catalog: SchemaCatalog,
    log: Logger,
    private readonly opts: ProcessorOptions = { maxEventBytes: 1 << 20, registryAttempts: 8 },
    private readonly telemetry: Telemetry = NO_TELEMETRY,
  ) {
    this.log = log.child({ component: 'processor' });
  }

  async start(): Promise<void> {
    await this.registerWithRetry();
    await this.checkTopics();
    this.sender = await this.kafka.producer();
    this.consumer = this.kafka.groupConsumer(this.config.settings.consumer.groupId, {
      topics: this.topology.nodes.map((n) => n.inputTopic),
      fromBeginning: true,
      concurrency: 2,
      sessionTimeoutMs: this.config.settings.consumer.sessionTimeoutMs,
    });
    this.running = this.consumer.run({
      onAssign: (a) => this.assigned(a),
      onBatch: (b) => this.batch(b),
      onCrash: (e) => {
        this.log.error({ err: e }, 'consumer crashed');
        this.telemetry.setLive(false);
        if ((e as { retriable?: boolean }).retriable !== true) this.onFatal(e);
      },
    });
    await this.running;
    this.log.info({ group: this.config.settings.consumer.groupId }, 'processor started');
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.telemetry.setReady(false);
    this.telemetry.setLive(false);
    this.log.info('stopping: finishing in-flight batches and committing');
    await this.consumer?.stop();
    for (const w of this.workers.values()) await w.then((a) => a.close(), () => undefined);
    await this.sender?.close();
    await this.kafka.close();
    this.log.info('stopped');
  }

  private assigned(assignment: Map<string, number[]>): void {
    const now = new Set<string>();
    for (const [topic, partitions] of assignment) for (const p of partitions) now.add(tp(topic, p));
    for (const [key, assigned] of [...this.workers]) {
      if (now.has(key)) continue;
      this.workers.delete(key);
      void assigned.then((a) => a.close(), () => undefined);
    }
    this.log.info({ assignment: Object.fromEntries(assignment) }, 'partitions assigned');
    this.joined = true;
    this.updateReady();
    for (const [topic, partitions] of assignment) {
      const fresh = partitions.filter((p) => !this.workers.has(tp(topic, p)));
      if (fresh.length > 0) this.restore(topic, fresh);
    }
  }

  // Restores all newly assigned partitions of one input topic with one changelog read. Under
  // exactly-once each partition first gets its transactional producer: connecting it fences a
  // zombie predecessor and aborts its open transaction, so the read-committed restore sees
  // everything that will ever be committed for the partition.
  private restore(topic: string, partitions: number[]): void {
    const node = this.topology.nodeForTopic(topic);
    if (node === undefined) throw new Error(`no processor for topic ${topic}`);
    const wiring = wiringOf(node);
    const groupId = this.config.settings.consumer.groupId;
    const exactly = this.config.settings.processing.guarantee === 'exactly_once';
    const started = Date.now();
    this.restoring++;
    this.updateReady();
    const ready = (async () => {
      const assigned = new Map<number, Assigned>();
      for (const p of partitions) {
        const worker = new PartitionWorker(new PartitionTask(node, p), wiring, this.catalog, this.topology.topics, this.opts.maxEventBytes, this.log.child({ topic, partition: p }), this.telemetry);
        if (exactly) {
          const tx = await this.kafka.transactionalProducer(`${groupId}.${topic}.${p}`);
          assigned.set(p, { worker, output: exactlyOnce(tx, groupId), close: () => tx.close() });
        } else {
          assigned.set(p, { worker, output: atLeastOnce(this.sender!, this.consumer!), close: async () => {} });
        }
      }
      const records = await this.kafka.readToEnd(node.store.changelogTopic, partitions, (r) => assigned.get(r.partition)!.worker.restoreRecord(r));
      this.log.info({ topic, partitions, records, ms: Date.now() - started }, 'state restored from changelog');
      this.telemetry.restored(topic, (Date.now() - started) / 1000, records);
      return assigned;
    })().finally(() => { this.restoring--; this.updateReady(); });
    for (const p of partitions) this.workers.set(tp(topic, p), ready.then((a) => a.get(p)!));
  }

  /** Ready once the group has been joined and every assigned partition has its state back. */
  private updateReady(): void {
    this.telemetry.setReady(this.joined && this.restoring === 0 && !this.stopping);
  }

  private async batch(b: Batch): Promise<number | undefined> {
    const key = tp(b.topic, b.partition);
    const pending = this.workers.get(key);
    if (pending === undefined) throw new Error(`batch for unassigned partition ${key}`);
    const { worker, output } = await withHeartbeat(pending, b);
    try {
      return await worker.processBatch(b, output);
    } catch (e) {
      // The store already holds this batch but its outputs may not be durable: forget the
      // store, so the retried batch runs against state restored from what the changelog has.
      if (this.workers.get(key) === pending) {
        this.workers.delete(key);
        await pending.then((a) => a.close(), () => undefined);
        this.restore(b.topic, [b.partition]);
      }
      this.log.warn({ err: (e as Error).message, topic: b.topic, partition: b.partition }, 'batch failed; partition state will be restored before it is retried');
      throw e;
    }
  }

  private async registerWithRetry(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await registerSchemas(this.catalog, this.topology);
        return;
      } catch (e) {
        if (attempt >= this.opts.registryAttempts) {
          throw new LoopguardError(ERROR_CODES.schemaRegistry, `schema registry at ${this.config.settings.schemaRegistry.url} did not accept our schemas after ${attempt} attempts: ${(e as Error).message}`, {}, false, { cause: e });
        }
        const wait = Math.min(10_000, 250 * 2 ** attempt) * (0.5 + Math.random() / 2);
        this.log.warn({ attempt, waitMs: Math.round(wait), err: (e as Error).message }, 'schema registry not ready; retrying');
        await delay(wait);
      }
    }
  }

  private async checkTopics(): Promise<void> {
    const specs = topicSpecs(this.config, this.topology);
    const counts = await this.kafka.partitionCounts(specs.map((s) => s.topic));
    const missing = specs.filter((s) => !counts.has(s.topic)).map((s) => s.topic);
    if (missing.length > 0) throw new LoopguardError(ERROR_CODES.kafka, `missing topics: ${missing.join(', ')} (create them with \`loopguard topics create\`)`, { missing });
    for (const node of this.topology.nodes) {
      const [inputs, changelog] = [counts.get(node.inputTopic), counts.get(node.store.changelogTopic)];
      if (inputs !== changelog) throw new LoopguardError(ERROR_CODES.kafka, `${node.store.changelogTopic} has ${changelog} partitions but ${node.inputTopic} has ${inputs}; they must match`, {});
    }
  }
}

/** Awaits `p`, heartbeating the group meanwhile so a long restore does not cost the partition. */
async function withHeartbeat<T>(p: Promise<T>, b: Batch): Promise<T> {
  let settled = false;
  const result = p.finally(() => { settled = true; });
  while (!settled) {
    await Promise.race([result.catch(() => undefined), delay(2_000)]);
    if (!settled) await b.heartbeat().catch(() => undefined);
  }
  return result;
}
