// `loopguard run`: one consumer group over the input topics, one PartitionWorker per assigned
// input partition (see assignments.ts), outputs made durable through the port's sinks.
import type { SchemaCatalog } from '../../schemas/registry.js';
import type { LoopguardConfig } from '../config.js';
import { ERROR_CODES, LoopguardError, isKafkaRefusal } from '../errors.js';
import { redactUrls, type Logger } from '../logger.js';
import type { Topology } from '../topology.js';
import { Assignments } from './assignments.js';
import type { Assignment, Batch, CrashReport, KafkaSession, RecordSource, Sink } from './port.js';
import { checkKeying, checkTopics, registerWithRetry } from './startup.js';
import { NO_TELEMETRY, type Telemetry } from './telemetry.js';

/**
 * Partitions whose batches are processed at once. A batch spends most of its time waiting for
 * acknowledgements, during which other partitions' batches can fold.
 */
const BATCHES_IN_FLIGHT = 6;

export interface ProcessorOptions {
  readonly maxEventBytes: number;
  readonly registryAttempts: number;
}

export class StreamProcessor {
  private sink: Sink | undefined;
  private source: RecordSource | undefined;
  private stopping = false;
  private joined = false;
  private restoring = 0;
  /** `topic\tpartition` of every input partition held now. */
  private readonly held = new Set<string>();
  private readonly log: Logger;
  private readonly assignments: Assignments;
  /** Called when the consumer dies of an error its client will not recover from by itself. */
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
    this.assignments = new Assignments({
      topology,
      kafka,
      catalog,
      log: this.log,
      telemetry,
      maxEventBytes: opts.maxEventBytes,
      sinkFor: (topic, p) => this.sinkFor(topic, p),
      onRestoring: (n) => {
        this.restoring = n;
        this.updateReady();
      },
    });
  }

  async start(): Promise<void> {
    const { settings } = this.config;
    await registerWithRetry(this.catalog, this.topology, this.opts.registryAttempts, redactUrls(settings.schemaRegistry.url), this.log);
    await checkTopics(this.kafka, this.config, this.topology);
    await checkKeying(this.kafka, this.config);
    if (this.stopping) return; // stopped while starting: join nothing
    this.source = this.kafka.groupConsumer(settings.consumer.groupId, {
      topics: this.topology.nodes.map((n) => n.inputTopic),
      fromBeginning: true,
      concurrency: BATCHES_IN_FLIGHT,
      sessionTimeoutMs: settings.consumer.sessionTimeoutMs,
    });
    if (settings.processing.guarantee === 'at_least_once') this.sink = await this.source.sink(this.outputTopics());
    await this.source.run({
      onAssigned: (a) => this.assigned(a),
      onRevoked: (a) => this.revoked(a),
      onBatch: (b) => this.batch(b),
      onCrash: (r) => this.crashed(r),
    });
    this.log.info({ group: settings.consumer.groupId }, 'processor started');
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.telemetry.setReady(false);
    this.telemetry.setLive(false);
    this.log.info('stopping: finishing in-flight batches and committing');
    // Restores in flight end first: a batch waiting for one would otherwise hold up the stop.
    this.assignments.abort();
    await this.source?.stop();
    await this.assignments.closeAll();
    await this.sink?.close();
    await this.kafka.close();
    this.log.info('stopped');
  }

  private sinkFor(topic: string, partition: number): Promise<{ sink: Sink; close(): Promise<void> }> {
    if (this.sink !== undefined) return Promise.resolve({ sink: this.sink, close: async () => {} });
    // One transactional id per input partition: whoever owns the partition next fences us.
    return this.source!.transactionalSink(`${this.config.settings.consumer.groupId}.${topic}.${partition}`, this.outputTopics()).then((sink) => ({
      sink,
      close: () => sink.close(),
    }));
  }

  /** Every topic a batch may write to. */
  private outputTopics(): string[] {
    const { verdicts, deadLetter } = this.topology.topics;
    return [verdicts, deadLetter, ...this.topology.nodes.map((n) => n.store.changelogTopic)];
  }

  private assigned(gained: Assignment): void {
    for (const [topic, ps] of gained) for (const p of ps) this.held.add(`${topic}\t${p}`);
    this.logHeld({ gained: Object.fromEntries(gained) });
    this.joined = true;
    this.updateReady();
    for (const [topic, partitions] of gained) this.assignments.assign(topic, partitions);
  }

  private revoked(lost: Assignment): void {
    for (const [topic, ps] of lost) for (const p of ps) this.held.delete(`${topic}\t${p}`);
    this.logHeld({ lost: Object.fromEntries(lost) });
    for (const [topic, partitions] of lost) this.assignments.revoke(topic, partitions);
  }

  /** Logs what this instance holds now, after every change, so the last line is the truth. */
  private logHeld(change: Record<string, unknown>): void {
    const assignment: Record<string, number[]> = {};
    for (const k of this.held) {
      const [topic, p] = k.split('\t') as [string, string];
      (assignment[topic] ??= []).push(Number(p));
    }
    this.log.info({ assignment, ...change }, 'partitions assigned');
  }

  // kafkajs restarts itself after some failures (its CRASH event says so); only a crash it
  // will not recover from ends the process, for a supervisor to restart.
  private crashed({ error, restarting }: CrashReport): void {
    if (restarting) {
      this.log.warn({ err: error }, 'consumer crashed; the client restarts it');
      return;
    }
    this.log.error({ err: error }, 'consumer crashed');
    this.telemetry.setLive(false);
    this.onFatal(error);
  }

  /** Ready once the group has been joined and every assigned partition has its state back. */
  private updateReady(): void {
    this.telemetry.setReady(this.joined && this.restoring === 0 && !this.stopping);
  }

  private async batch(b: Batch): Promise<number | undefined> {
    const pending = this.assignments.get(b.topic, b.partition);
    if (pending === undefined)
      throw new LoopguardError(ERROR_CODES.internal, `batch for unassigned partition ${b.topic}/${b.partition}`, { topic: b.topic, partition: b.partition });
    try {
      const { worker, sink } = await pending;
      return await worker.processBatch(b, sink);
    } catch (e) {
      if (this.stopping) return undefined;
      // A missing ACL (a changelog or decision topic not writable, a transactional id not
      // granted) fails every retry the same way: the process ends, saying which.
      if (isKafkaRefusal(e)) {
        this.log.error({ err: e.message, topic: b.topic, partition: b.partition }, 'Kafka refused this processor');
        this.telemetry.setLive(false);
        this.onFatal(e);
      }
      // The store already holds this batch but its outputs may not be durable: forget the
      // store, so the retried batch runs against state restored from what the changelog has.
      await this.assignments.reset(b.topic, b.partition, pending);
      this.log.warn({ err: (e as Error).message, topic: b.topic, partition: b.partition }, 'batch failed; partition state will be restored before it is retried');
      throw e;
    }
  }
}
