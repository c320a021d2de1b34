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
import { PartitionWorker } from './partitionWorker.js';
import { registerSchemas, topicSpecs, wiringOf } from './wiring.js';

export interface ProcessorOptions {
  readonly maxEventBytes: number;
  readonly registryAttempts: number;
}

const tp = (topic: string, partition: number) => `${topic}/${partition}`;

export class StreamProcessor {
  private readonly workers = new Map<string, Promise<PartitionWorker>>();
  private sender: Sender | undefined;
  private consumer: GroupConsumer | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  private readonly log: Logger;
  /** Called when the consumer dies of an error it will not retry. */
  onFatal: (error: Error) => void = () => {};

  constructor(
    private readonly config: LoopguardConfig,
    private readonly topology: Topology,
    private readonly kafka: KafkaSession,
    private readonly catalog: SchemaCatalog,
    log: Logger,
    private readonly opts: ProcessorOptions = { maxEventBytes: 1 << 20, registryAttempts: 8 },
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
        if ((e as { retriable?: boolean }).retriable !== true) this.onFatal(e);
      },
    });
    await this.running;
    this.log.info({ group: this.config.settings.consumer.groupId }, 'processor started');
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.log.info('stopping: finishing in-flight batches and committing');
    await this.consumer?.stop();
    await this.sender?.close();
    await this.kafka.close();
    this.log.info('stopped');
  }

  /** Per-partition counters of the partitions this instance holds now. */
  async stats(): Promise<Array<{ topic: string; partition: number; keys: number } & PartitionWorker['stats']>> {
    const out = [];
    for (const w of this.workers.values()) {
      const worker = await w;
      out.push({ topic: worker.task.node.inputTopic, partition: worker.task.partition, keys: worker.task.size, ...worker.stats });
    }
    return out;
  }

  private assigned(assignment: Map<string, number[]>): void {
    const now = new Set<string>();
    for (const [topic, partitions] of assignment) for (const p of partitions) now.add(tp(topic, p));
    for (const key of [...this.workers.keys()]) if (!now.has(key)) this.workers.delete(key);
    this.log.info({ assignment: Object.fromEntries(assignment) }, 'partitions assigned');
    for (const [topic, partitions] of assignment) {
      const fresh = partitions.filter((p) => !this.workers.has(tp(topic, p)));
      if (fresh.length > 0) this.restore(topic, fresh);
    }
  }

  // Restores all newly assigned partitions of one input topic with one changelog read.
  private restore(topic: string, partitions: number[]): void {
    const node = this.topology.nodeForTopic(topic);
    if (node === undefined) throw new Error(`no processor for topic ${topic}`);
    const wiring = wiringOf(node);
    const workers = new Map(partitions.map((p) => [p, new PartitionWorker(new PartitionTask(node, p), wiring, this.catalog, this.topology.topics, this.opts.maxEventBytes, this.log.child({ topic, partition: p }))]));
    const started = Date.now();
    const done = this.kafka.readToEnd(node.store.changelogTopic, partitions, (r) => workers.get(r.partition)!.restoreRecord(r))
      .then((records) => {
        this.log.info({ topic, partitions, records, ms: Date.now() - started }, 'state restored from changelog');
      });
    for (const [p, w] of workers) this.workers.set(tp(topic, p), done.then(() => w));
  }

  private async batch(b: Batch): Promise<number | undefined> {
    const pending = this.workers.get(tp(b.topic, b.partition));
    if (pending === undefined) throw new Error(`batch for unassigned partition ${tp(b.topic, b.partition)}`);
    const worker = await withHeartbeat(pending, b);
    return worker.processBatch(b, this.sender!, this.consumer!);
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
