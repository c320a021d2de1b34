// The only module that imports kafkajs. Everything else sees plain records, a producer that
// sends them, a group consumer that hands out batches, and a few admin operations; swapping
// the client is a change to this file alone.
import { randomUUID } from 'node:crypto';
import kafkajs from 'kafkajs';
import type { Consumer, EachBatchPayload, IHeaders, KafkaConfig, LogEntry, Producer, SASLOptions } from 'kafkajs';
import type { LoopguardSettings } from '../config.js';
import type { Logger } from '../logger.js';

const { Kafka, logLevel, CompressionTypes, Partitioners } = kafkajs;

export interface InRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly timestamp: number;
  readonly headers: Readonly<Record<string, string>>;
}

export interface OutRecord {
  readonly topic: string;
  readonly partition: number;
  readonly key: string | Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Batch {
  readonly topic: string;
  readonly partition: number;
  readonly records: readonly InRecord[];
  /** The partition's high watermark when the batch was fetched (for lag). */
  readonly highWatermark: number;
  /** False once the consumer is stopping or the partition was revoked: stop early. */
  isActive(): boolean;
  heartbeat(): Promise<void>;
}

export interface TopicSpec {
  readonly topic: string;
  readonly partitions: number;
  readonly replicationFactor: number;
  readonly config?: Readonly<Record<string, string>>;
}

export interface KafkaSession {
  producer(): Promise<Sender>;
  /** A producer with its own transactional id; connecting fences any older producer with that id. */
  transactionalProducer(transactionalId: string): Promise<TransactionalSender>;
  groupConsumer(groupId: string, opts: GroupOptions): GroupConsumer;
  follower(topic: string): PartitionFollower;
  /** Reads the given partitions of a topic from the beginning up to their current end. */
  readToEnd(topic: string, partitions: readonly number[], onRecord: (r: InRecord) => Promise<void> | void): Promise<number>;
  /** Partition count per topic; missing topics are absent from the map. */
  partitionCounts(topics: readonly string[]): Promise<Map<string, number>>;
  createTopics(specs: readonly TopicSpec[]): Promise<string[]>;
  /** Deletes topics and waits until the broker no longer lists them. */
  deleteTopics(topics: readonly string[]): Promise<void>;
  /** Members of a consumer group (0 for a stopped or unknown group). */
  groupMembers(groupId: string): Promise<number>;
  /** Committed offset per partition (-1: none). */
  committedOffsets(groupId: string, topic: string): Promise<Map<number, number>>;
  /** Low and high watermark per partition. */
  watermarks(topic: string): Promise<Map<number, { low: number; high: number }>>;
  /** Per partition, the first offset whose timestamp is at or after `ts` (the high watermark if none). */
  offsetsForTime(topic: string, ts: number): Promise<Map<number, number>>;
  setCommittedOffsets(groupId: string, topic: string, offsets: ReadonlyMap<number, number>): Promise<void>;
  close(): Promise<void>;
}

export interface Sender {
  send(records: readonly OutRecord[]): Promise<void>;
  close(): Promise<void>;
}

/** Sends records and commits the consumer's offset in one Kafka transaction. */
export interface TransactionalSender {
  commit(records: readonly OutRecord[], offset: { groupId: string; topic: string; partition: number; nextOffset: number }): Promise<void>;
  close(): Promise<void>;
}

/**
 * Reads only the partitions it is asked to follow, each from the end it had when `follow` was
 * called: a client that publishes a request to partition p follows p first, so the answer,
 * written after the request, cannot be missed, and partitions nobody asked for are not fetched.
 */
export interface PartitionFollower {
  start(onRecord: (r: InRecord) => Promise<void> | void): Promise<void>;
  follow(partition: number): Promise<void>;
  stop(): Promise<void>;
}

export interface GroupOptions {
  readonly topics: readonly string[];
  readonly fromBeginning: boolean;
  readonly readCommitted?: boolean;
  readonly concurrency?: number;
  readonly sessionTimeoutMs?: number;
}

export interface GroupConsumer {
  /** Runs until `stop`; `onAssign` sees each new assignment before batches of it arrive. */
  run(handlers: { onBatch(batch: Batch): Promise<number | undefined>; onAssign?(assignment: Map<string, number[]>): void; onCrash?(error: Error): void }): Promise<void>;
  commit(topic: string, partition: number, nextOffset: number): Promise<void>;
  stop(): Promise<void>;
}

const MAX_REQUEST_BYTES = 512 * 1024;

function* chunks(records: readonly OutRecord[]): Generator<readonly OutRecord[]> {
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const size = (r.value?.length ?? 0) + (typeof r.key === 'string' ? Buffer.byteLength(r.key) : r.key?.length ?? 0) + 64;
    if (bytes + size > MAX_REQUEST_BYTES && i > start) { yield records.slice(start, i); start = i; bytes = 0; }
    bytes += size;
  }
  if (start < records.length) yield records.slice(start);
}

// Every record carries its partition, so the partitioner is never consulted. An idempotent
// producer must not give up retrying (kafkajs warns otherwise); each attempt is bounded.
const producerConfig = () => ({
  idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false,
  createPartitioner: Partitioners.DefaultPartitioner, retry: { retries: Number.MAX_SAFE_INTEGER, maxRetryTime: 5_000 },
});

function topicMessages(records: readonly OutRecord[]) {
  const byTopic = new Map<string, OutRecord[]>();
  for (const r of records) { let l = byTopic.get(r.topic); if (!l) byTopic.set(r.topic, (l = [])); l.push(r); }
  return [...byTopic].map(([topic, rs]) => ({ topic, messages: rs.map((r) => ({ partition: r.partition, key: r.key, value: r.value, headers: r.headers as IHeaders | undefined })) }));
}

function saslOf(s: LoopguardSettings['kafka']['sasl']): SASLOptions | undefined {
  if (s === undefined) return undefined;
  return { mechanism: s.mechanism, username: s.username, password: s.password } as SASLOptions;
}

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = { [logLevel.ERROR]: 'error', [logLevel.WARN]: 'warn', [logLevel.INFO]: 'info', [logLevel.DEBUG]: 'debug' };

function kafkaLogger(log: Logger) {
  return () => ({ level, log: entry }: LogEntry) => {
    const { message, ...rest } = entry;
    // kafkajs logs retriable coordinator errors as ERROR while it retries them itself.
    const lvl = LEVELS[level] === 'error' && /coordinator|leader|rebalanc|concurrent/i.test(message) ? 'warn' : LEVELS[level] ?? 'info';
    log[lvl]({ kafka: rest }, message);
  };
}

const headersOf = (h: IHeaders | undefined): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) if (v !== undefined) out[k] = Array.isArray(v) ? String(v[0]) : String(v);
  return out;
};

const toInRecord = (topic: string, partition: number, m: { offset: string; key: Buffer | null; value: Buffer | null; timestamp: string; headers?: IHeaders }): InRecord => ({
  topic, partition, offset: Number(m.offset), key: m.key, value: m.value, timestamp: Number(m.timestamp), headers: headersOf(m.headers),
});

export function connectKafka(settings: Pick<LoopguardSettings, 'kafka'>, log: Logger, clientSuffix = ''): KafkaSession {
  const config: KafkaConfig = {
    clientId: settings.kafka.clientId + clientSuffix,
    brokers: settings.kafka.brokers,
    ssl: settings.kafka.ssl,
    sasl: saslOf(settings.kafka.sasl),
    logLevel: logLevel.WARN,
    logCreator: kafkaLogger(log.child({ component: 'kafkajs' })),
    retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 5_000 },
  };
  const kafka = new Kafka(config);
  const admin = kafka.admin();
  const opened: Array<{ disconnect(): Promise<void> }> = [admin];
  let adminReady: Promise<void> | undefined;
  const ensureAdmin = () => (adminReady ??= admin.connect());

  async function producer(): Promise<Sender> {
    const p: Producer = kafka.producer(producerConfig());
    await p.connect();
    opened.push(p);
    return {
      // Split so that no request carries more than MAX_REQUEST_BYTES: a big batch of decisions
      // would otherwise exceed the broker's message.max.bytes. Chunks go out in order.
      send: async (records) => {
        for (const chunk of chunks(records)) {
          await p.sendBatch({ acks: -1, compression: CompressionTypes.None, topicMessages: topicMessages(chunk) });
        }
      },
      close: () => p.disconnect(),
    };
  }

  async function transactionalProducer(transactionalId: string): Promise<TransactionalSender> {
    const p: Producer = kafka.producer({ ...producerConfig(), transactionalId });
    await p.connect();
    opened.push(p);
    return {
      commit: async (records, offset) => {
        const tx = await p.transaction();
        try {
          for (const chunk of chunks(records)) await tx.sendBatch({ acks: -1, topicMessages: topicMessages(chunk) });
          await tx.sendOffsets({ consumerGroupId: offset.groupId, topics: [{ topic: offset.topic, partitions: [{ partition: offset.partition, offset: String(offset.nextOffset) }] }] });
          await tx.commit();
        } catch (e) {
          await tx.abort().catch(() => {});
          throw e;
        }
      },
      close: () => p.disconnect(),
    };
  }

  function groupConsumer(groupId: string, opts: GroupOptions): GroupConsumer {
    const c: Consumer = kafka.consumer({ groupId, readUncommitted: opts.readCommitted === false, sessionTimeout: opts.sessionTimeoutMs ?? 30_000, heartbeatInterval: 3_000, allowAutoTopicCreation: false });
    opened.push(c);
    return {
      async run(h) {
        await c.connect();
        for (const topic of opts.topics) await c.subscribe({ topic, fromBeginning: opts.fromBeginning });
        c.on(c.events.GROUP_JOIN, (e) => {
          const assignment = new Map<string, number[]>(Object.entries(e.payload.memberAssignment as Record<string, number[]>));
          h.onAssign?.(assignment);
        });
        if (h.onCrash) c.on(c.events.CRASH, (e) => h.onCrash!(e.payload.error));
        await c.run({
          autoCommit: false,
          eachBatchAutoResolve: false,
          partitionsConsumedConcurrently: opts.concurrency ?? 1,
          eachBatch: async (p: EachBatchPayload) => {
            const { batch } = p;
            const records = batch.messages.map((m) => toInRecord(batch.topic, batch.partition, m));
            const done = await h.onBatch({ topic: batch.topic, partition: batch.partition, records, highWatermark: Number(batch.highWatermark), isActive: () => p.isRunning() && !p.isStale(), heartbeat: () => p.heartbeat() });
            if (done !== undefined) p.resolveOffset(String(done));
          },
        });
      },
      commit: (topic, partition, nextOffset) => c.commitOffsets([{ topic, partition, offset: String(nextOffset) }]),
      stop: async () => { await c.stop(); await c.disconnect(); },
    };
  }

  function follower(topic: string): PartitionFollower {
    // A group of one (its own id), so it is assigned every partition and pauses them all.
    const c: Consumer = kafka.consumer({ groupId: `loopguard-client-${randomUUID()}`, readUncommitted: false, allowAutoTopicCreation: false, maxWaitTimeInMs: 100 });
    opened.push(c);
    const followed = new Map<number, Promise<void>>();
    return {
      async start(onRecord) {
        await c.connect();
        await c.subscribe({ topic, fromBeginning: false });
        const joined = new Promise<void>((resolve) => c.on(c.events.GROUP_JOIN, () => { c.pause([{ topic }]); resolve(); }));
        await c.run({ autoCommit: false, eachBatch: async ({ batch }) => { for (const m of batch.messages) await onRecord(toInRecord(batch.topic, batch.partition, m)); } });
        await joined;
        await ensureAdmin();
      },
      follow(partition) {
        let ready = followed.get(partition);
        if (ready === undefined) {
          ready = (async () => {
            const end = (await admin.fetchTopicOffsets(topic)).find((o) => o.partition === partition);
            c.seek({ topic, partition, offset: end?.high ?? '0' });
            c.resume([{ topic, partitions: [partition] }]);
          })();
          followed.set(partition, ready);
          ready.catch(() => followed.delete(partition));
        }
        return ready;
      },
      stop: async () => { await c.stop(); await c.disconnect(); },
    };
  }

  async function partitionCounts(topics: readonly string[]): Promise<Map<string, number>> {
    await ensureAdmin();
    const existing = new Set(await admin.listTopics());
    const wanted = topics.filter((t) => existing.has(t));
    const out = new Map<string, number>();
    if (wanted.length === 0) return out;
    const meta = await admin.fetchTopicMetadata({ topics: wanted });
    for (const t of meta.topics) out.set(t.name, t.partitions.length);
    return out;
  }

  async function readToEnd(topic: string, partitions: readonly number[], onRecord: (r: InRecord) => Promise<void> | void): Promise<number> {
    await ensureAdmin();
    const ends = new Map<number, number>();
    for (const o of await admin.fetchTopicOffsets(topic)) {
      if (partitions.includes(o.partition) && Number(o.high) > Number(o.low)) ends.set(o.partition, Number(o.high));
    }
    if (ends.size === 0) return 0;
    const groupId = `loopguard-restore-${randomUUID()}`;
    const c = kafka.consumer({ groupId, readUncommitted: false, allowAutoTopicCreation: false });
    let count = 0;
    try {
      await c.connect();
      await c.subscribe({ topic, fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        c.on(c.events.CRASH, (e) => reject(e.payload.error));
        c.run({
          autoCommit: false,
          eachBatch: async ({ batch, pause }) => {
            const end = ends.get(batch.partition);
            if (end === undefined) { pause(); return; }
            for (const m of batch.messages) {
              if (Number(m.offset) >= end) break;
              await onRecord(toInRecord(topic, batch.partition, m));
              count++;
            }
            if (Number(batch.lastOffset()) + 1 >= end) {
              ends.delete(batch.partition);
              pause();
              if (ends.size === 0) resolve();
            }
          },
        }).catch(reject);
      });
    } finally {
      await c.stop().catch(() => {});
      await c.disconnect().catch(() => {});
      await admin.deleteGroups([groupId]).catch(() => {});
    }
    return count;
  }

  async function createTopics(specs: readonly TopicSpec[]): Promise<string[]> {
    await ensureAdmin();
    const existing = new Set(await admin.listTopics());
    const missing = specs.filter((s) => !existing.has(s.topic));
    if (missing.length === 0) return [];
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((s) => ({
        topic: s.topic, numPartitions: s.partitions, replicationFactor: s.replicationFactor,
        configEntries: Object.entries(s.config ?? {}).map(([name, value]) => ({ name, value })),
      })),
    });
    return missing.map((s) => s.topic);
  }

  async function deleteTopics(topics: readonly string[]): Promise<void> {
    await ensureAdmin();
    const existing = new Set(await admin.listTopics());
    const doomed = topics.filter((t) => existing.has(t));
    if (doomed.length === 0) return;
    await admin.deleteTopics({ topics: doomed, timeout: 30_000 });
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const left = new Set(await admin.listTopics());
      if (doomed.every((t) => !left.has(t))) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`topics still listed a minute after deletion: ${doomed.join(', ')}`);
  }

  async function groupMembers(groupId: string): Promise<number> {
    await ensureAdmin();
    const { groups } = await admin.describeGroups([groupId]);
    return groups[0]?.members.length ?? 0;
  }

  async function committedOffsets(groupId: string, topic: string): Promise<Map<number, number>> {
    await ensureAdmin();
    const res = await admin.fetchOffsets({ groupId, topics: [topic] });
    return new Map((res[0]?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
  }

  async function watermarks(topic: string): Promise<Map<number, { low: number; high: number }>> {
    await ensureAdmin();
    return new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, { low: Number(o.low), high: Number(o.high) }]));
  }

  async function offsetsForTime(topic: string, ts: number): Promise<Map<number, number>> {
    await ensureAdmin();
    const marks = await watermarks(topic);
    const found = await admin.fetchTopicOffsetsByTimestamp(topic, ts);
    return new Map(found.map((o) => [o.partition, Number(o.offset) < 0 ? marks.get(o.partition)!.high : Number(o.offset)]));
  }

  async function setCommittedOffsets(groupId: string, topic: string, offsets: ReadonlyMap<number, number>): Promise<void> {
    await ensureAdmin();
    await admin.setOffsets({ groupId, topic, partitions: [...offsets].map(([partition, offset]) => ({ partition, offset: String(offset) })) });
  }

  return {
    producer,
    transactionalProducer,
    groupConsumer,
    follower,
    readToEnd,
    partitionCounts,
    createTopics,
    deleteTopics,
    groupMembers,
    committedOffsets,
    watermarks,
    offsetsForTime,
    setCommittedOffsets,
    close: async () => { for (const o of opened.reverse()) await o.disconnect().catch(() => {}); },
  };
}
