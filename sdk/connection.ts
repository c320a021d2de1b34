// What both SDK clients share: a Kafka session, the schema catalog, one producer, and a
// follower of the decision topic that resolves waiting requests by correlation key.
import { decisionCodec, type Decision, type ValueCodec } from '../schemas/codecs.js';
import { COMPATIBILITY, SchemaCatalog } from '../schemas/registry.js';
import { configFrom } from '../topology/config.js';
import { ERROR_CODES, LoopguardError } from '../topology/errors.js';
import { createLogger, type Logger } from '../topology/logger.js';
import { partitionFor } from '../topology/partitioner.js';
import { connectKafka } from '../topology/runtime/connect.js';
import type { KafkaSession, PartitionFollower, Sender } from '../topology/runtime/port.js';
import { DEFAULT_TOPICS, type TopicNames } from '../topology/topology.js';

export interface ClientOptions {
  /** Bootstrap brokers, e.g. ['127.0.0.1:9092']. */
  readonly brokers: readonly string[];
  /** Confluent-compatible schema registry, e.g. http://127.0.0.1:8081. */
  readonly schemaRegistryUrl: string;
  /** For an https:// registry: a CA certificate (PEM file) to trust instead of the system's. */
  readonly schemaRegistryCaFile?: string;
  /** Topic names when they differ from loopguard's defaults. */
  readonly topics?: Partial<TopicNames>;
  /** Kafka client id (default loopguard-sdk). */
  readonly clientId?: string;
  /**
   * TLS to Kafka: true (the system's CAs), or PEM files: `caFile` (the CA that signed the
   * brokers' certificates), `certFile` + `keyFile` (+ `keyPassword`) for mutual TLS.
   */
  readonly ssl?: boolean | { caFile?: string; certFile?: string; keyFile?: string; keyPassword?: string };
  /** SASL credentials (the principal whose ACLs apply). */
  readonly sasl?: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string };
  /** Kafka client library (default kafkajs); librdkafka where it is not installed: kafkajs. */
  readonly kafkaClient?: 'kafkajs' | 'librdkafka';
  /** How long to wait for a decision before the failure policy answers. Default 2000 ms. */
  readonly timeoutMs?: number;
  /**
   * What to answer when loopguard does not decide in time: 'open' lets the call or message
   * through, 'closed' stops it. There is no default: choose.
   */
  readonly failure: 'open' | 'closed';
  readonly logger?: Logger;
}

export type { Decision } from '../schemas/codecs.js';

interface Waiter {
  resolve(d: Decision | undefined): void;
  timer: NodeJS.Timeout;
}

export class Connection {
  readonly topics: TopicNames;
  private readonly waiters = new Map<string, Waiter>();
  private readonly partitions = new Map<string, number>();
  private listeners: Array<(d: Decision) => void> = [];

  private constructor(
    readonly kafka: KafkaSession,
    readonly catalog: SchemaCatalog,
    private readonly sender: Sender,
    private readonly follower: PartitionFollower,
    readonly timeoutMs: number,
    readonly log: Logger,
    topics: TopicNames,
  ) {
    this.topics = topics;
  }

  static async open(opts: ClientOptions, inputs: ReadonlyArray<{ topic: keyof TopicNames; codec: ValueCodec }>): Promise<Connection> {
    const topics = { ...DEFAULT_TOPICS, ...opts.topics };
    const settings = configFrom({
      loopguard: {
        kafka: {
          brokers: [...opts.brokers],
          clientId: opts.clientId ?? 'loopguard-sdk',
          ssl: opts.ssl ?? false,
          ...(opts.sasl ? { sasl: opts.sasl } : {}),
          ...(opts.kafkaClient ? { client: opts.kafkaClient } : {}),
        },
        schemaRegistry: { url: opts.schemaRegistryUrl, ...(opts.schemaRegistryCaFile !== undefined ? { caFile: opts.schemaRegistryCaFile } : {}) },
      },
    }).settings;
    const log = opts.logger ?? createLogger({ log: { level: 'warn', redact: true } }, 'loopguard-sdk');
    const kafka = connectKafka(settings, log);
    try {
      const catalog = SchemaCatalog.connect(settings.schemaRegistry);
      for (const i of inputs) await catalog.register(topics[i.topic], i.codec, COMPATIBILITY.FULL_TRANSITIVE);
      await catalog.register(topics.verdicts, decisionCodec, COMPATIBILITY.FULL_TRANSITIVE);
      const counts = await kafka.partitionCounts([topics.verdicts, ...inputs.map((i) => topics[i.topic])]);
      const sender = await kafka.producer();
      const follower = kafka.follower(topics.verdicts);
      const conn = new Connection(kafka, catalog, sender, follower, opts.timeoutMs ?? 2000, log, topics);
      for (const [t, n] of counts) conn.partitions.set(t, n);
      await follower.start((r) => conn.onRecord(r.value));
      return conn;
    } catch (e) {
      // A connection that failed to open leaves nothing running: its clients would keep the process up.
      await kafka.close().catch(() => undefined);
      throw e;
    }
  }

  partitionOf(topic: string, stateKey: string): number {
    const n = this.partitions.get(topic);
    if (n === undefined) throw new LoopguardError(ERROR_CODES.kafka, `topic ${topic} does not exist (create it with \`loopguard topics create\`)`, { topic });
    return partitionFor(stateKey, n);
  }

  onDecision(listener: (d: Decision) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Publishes `value` and waits for the decision with `correlation`, or undefined after the
   * timeout. Decisions land in the same partition number as their input.
   */
  async request(topic: string, partition: number, key: string, value: Buffer, correlation: string | undefined): Promise<Decision | undefined> {
    await this.follower.follow(partition);
    if (correlation === undefined) {
      await this.sender.send([{ topic, partition, key, value }]);
      return undefined;
    }
    const answer = new Promise<Decision | undefined>((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(correlation);
        resolve(undefined);
      }, this.timeoutMs);
      this.waiters.set(correlation, { resolve, timer });
    });
    await this.sender.send([{ topic, partition, key, value }]);
    return answer;
  }

  async publish(topic: string, partition: number, key: string, value: Buffer): Promise<void> {
    await this.follower.follow(partition);
    await this.sender.send([{ topic, partition, key, value }]);
  }

  private correlationOf?: (d: Decision) => string | undefined;
  setCorrelation(f: (d: Decision) => string | undefined): void {
    this.correlationOf = f;
  }

  private async onRecord(value: Buffer | null): Promise<void> {
    let d: Decision;
    try {
      d = await this.catalog.decode(value, decisionCodec);
    } catch (e) {
      this.log.warn({ err: (e as Error).message }, 'undecodable decision skipped');
      return;
    }
    for (const l of this.listeners) l(d);
    const c = this.correlationOf?.(d);
    const w = c === undefined ? undefined : this.waiters.get(c);
    if (w !== undefined) {
      clearTimeout(w.timer);
      this.waiters.delete(c!);
      w.resolve(d);
    }
  }

  async close(): Promise<void> {
    for (const w of this.waiters.values()) {
      clearTimeout(w.timer);
      w.resolve(undefined);
    }
    this.waiters.clear();
    await this.follower.stop().catch(() => {});
    await this.sender.close().catch(() => {});
    await this.kafka.close();
  }
}
