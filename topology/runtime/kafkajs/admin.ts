// Admin operations on one lazily connected kafkajs admin client.
import { setTimeout as delay } from 'node:timers/promises';
import type { Admin } from 'kafkajs';
import { ERROR_CODES, LoopguardError } from '../../errors.js';
import type { AdminOps, TopicSpec } from '../port.js';
import { topicAccess, type Access } from '../refusals.js';
import { kafkaCall, kafkaError, rootOf, type KafkaClient } from './client.js';

export class KafkajsAdmin implements AdminOps {
  private readonly admin: Admin;
  private connected: Promise<void> | undefined;
  /** For single questions whose answer kafkajs would retry for seconds (a missing topic): asked once. */
  private once: Promise<Admin> | undefined;

  constructor(
    private readonly kafka: KafkaClient,
    private readonly brokers: readonly string[],
  ) {
    this.admin = kafka.admin();
  }

  /** Connects once; a failed connect is tried again by the next operation. */
  connect(): Promise<void> {
    if (this.connected === undefined) {
      const pending = kafkaCall(`cannot connect to Kafka at ${this.brokers.join(',')}`, () => this.admin.connect());
      pending.catch(() => {
        if (this.connected === pending) this.connected = undefined;
      });
      this.connected = pending;
    }
    return this.connected;
  }

  /** Every operation's failure becomes a LoopguardError named after it (`access`: what it needs allowed). */
  private async run<T>(what: string, op: (admin: Admin) => Promise<T>, access?: Access): Promise<T> {
    await this.connect();
    return kafkaCall(what, () => op(this.admin), this.kafka, access);
  }

  /**
   * Low and high per partition. The admin lists offsets with read_committed isolation, so
   * `high` is the end a read-committed reader reaches: the last stable offset.
   */
  watermarks(topic: string): Promise<Map<number, { low: number; high: number }>> {
    return this.run(
      `cannot read the offsets of ${topic}`,
      async (a) => new Map((await a.fetchTopicOffsets(topic)).map((o) => [o.partition, { low: Number(o.low), high: Number(o.high) }])),
      topicAccess('DESCRIBE', topic),
    );
  }

  async partitionCounts(topics: readonly string[]): Promise<Map<string, number>> {
    const out = await this.run('cannot list topics', async (a) => {
      const existing = new Set(await a.listTopics());
      const wanted = topics.filter((t) => existing.has(t));
      const counts = new Map<string, number>();
      if (wanted.length === 0) return counts;
      for (const t of (await a.fetchTopicMetadata({ topics: wanted })).topics) counts.set(t.name, t.partitions.length);
      return counts;
    });
    // The list holds only the topics this client may DESCRIBE: one it may not is asked for by
    // name, and the broker says which it is (missing, or not for this client).
    for (const t of topics) if (!out.has(t)) await this.describeUnlisted(t);
    return out;
  }

  /** Resolves when `topic` does not exist; rejects when the broker refuses to describe it. */
  private async describeUnlisted(topic: string): Promise<void> {
    const what = `cannot describe topic ${topic}`;
    this.once ??= (async () => {
      const a = this.kafka.admin({ retry: { retries: 0 } });
      await kafkaCall(`cannot connect to Kafka at ${this.brokers.join(',')}`, () => a.connect(), this.kafka);
      return a;
    })();
    const a = await this.once;
    try {
      await a.fetchTopicMetadata({ topics: [topic] });
    } catch (e) {
      if ((rootOf(e) as { type?: string }).type === 'UNKNOWN_TOPIC_OR_PARTITION') return;
      throw kafkaError(what, e, this.kafka, topicAccess('DESCRIBE', topic));
    }
  }

  createTopics(specs: readonly TopicSpec[]): Promise<string[]> {
    return this.run('cannot create topics', async (a) => {
      // Tried again on retriable errors; what an earlier try created is listed then, not created.
      const created: string[] = [];
      await whileRetriable(CREATE_PATIENCE_MS, async () => {
        const existing = new Set(await a.listTopics());
        const missing = specs.filter((s) => !existing.has(s.topic));
        if (missing.length === 0) return;
        created.push(...missing.map((s) => s.topic));
        await a
          .createTopics({
            waitForLeaders: true,
            topics: missing.map((s) => ({
              topic: s.topic,
              numPartitions: s.partitions,
              replicationFactor: s.replicationFactor,
              configEntries: Object.entries(s.config ?? {}).map(([name, value]) => ({ name, value })),
            })),
          })
          .catch((e: unknown) => {
            // kafkajs gathers the topics' errors; a refused one names what was refused.
            const refused = (e as { errors?: unknown[] }).errors?.find((x) => (x as { type?: string }).type?.endsWith('AUTHORIZATION_FAILED'));
            throw refused === undefined ? e : kafkaError('cannot create topics', refused, this.kafka, topicAccess('CREATE', ...missing.map((s) => s.topic)));
          });
      });
      return created;
    });
  }

  deleteTopics(topics: readonly string[]): Promise<void> {
    return this.run('cannot delete topics', async (a) => {
      const existing = new Set(await a.listTopics());
      const doomed = topics.filter((t) => existing.has(t));
      if (doomed.length === 0) return;
      await a.deleteTopics({ topics: doomed, timeout: 30_000 });
      // Deletion is asynchronous on the broker; recreating a topic still listed would fail.
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        const left = new Set(await a.listTopics());
        if (doomed.every((t) => !left.has(t))) return;
        await delay(200);
      }
      throw new LoopguardError(ERROR_CODES.kafka, `topics still listed a minute after deletion: ${doomed.join(', ')}`, { topics: doomed }, true);
    });
  }

  groupMembers(groupId: string): Promise<number> {
    return this.run(`cannot describe consumer group ${groupId}`, async (a) => (await a.describeGroups([groupId])).groups[0]?.members.length ?? 0);
  }

  committedOffsets(groupId: string, topic: string): Promise<Map<number, number>> {
    return this.run(`cannot read the committed offsets of ${groupId}`, async (a) => {
      const res = await a.fetchOffsets({ groupId, topics: [topic] });
      return new Map((res[0]?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
    });
  }

  async offsetsForTime(topic: string, ts: number): Promise<Map<number, number>> {
    const marks = await this.watermarks(topic);
    const found = await this.run(`cannot look up offsets by time in ${topic}`, (a) => a.fetchTopicOffsetsByTimestamp(topic, ts));
    return new Map(found.map((o) => [o.partition, Number(o.offset) < 0 ? marks.get(o.partition)!.high : Number(o.offset)]));
  }

  setCommittedOffsets(groupId: string, topic: string, offsets: ReadonlyMap<number, number>): Promise<void> {
    return this.run(`cannot set the offsets of ${groupId}`, (a) =>
      a.setOffsets({ groupId, topic, partitions: [...offsets].map(([partition, offset]) => ({ partition, offset: String(offset) })) }),
    );
  }

  /** Best effort: a group that outlives us is only clutter. */
  async deleteGroup(groupId: string): Promise<void> {
    await this.run(`cannot delete consumer group ${groupId}`, (a) => a.deleteGroups([groupId])).catch(() => undefined);
  }

  async close(): Promise<void> {
    const once = this.once;
    this.once = undefined;
    await once?.then((a) => a.disconnect()).catch(() => undefined);
    await this.admin.disconnect();
  }
}

/**
 * How long creating topics keeps trying while the broker answers with retriable errors: a broker
 * just restarted answers before it hosts its partitions again ("This server does not host this
 * topic-partition") for longer than kafkajs's own retries last.
 */
const CREATE_PATIENCE_MS = 30_000;

/** The time whileRetriable reads and waits on (a spec gives its own, so no test waits on the real one). */
export interface RetryClock {
  now(): number;
  pause(ms: number): Promise<void>;
}
const SYSTEM_CLOCK: RetryClock = { now: () => Date.now(), pause: (ms) => delay(ms) };

/** `op` again (it must be idempotent) while it fails with a retriable Kafka error, until `ms` pass. */
export async function whileRetriable<T>(ms: number, op: () => Promise<T>, pauseMs = 500, clock: RetryClock = SYSTEM_CLOCK): Promise<T> {
  const deadline = clock.now() + ms;
  for (;;) {
    try {
      return await op();
    } catch (e) {
      if (!retriable(e) || clock.now() >= deadline) throw e;
      await clock.pause(pauseMs);
    }
  }
}

/** A kafkajs error that is retriable, or that gave up retrying one. */
const retriable = (e: unknown): boolean => {
  const err = e as { retriable?: unknown; name?: unknown; cause?: unknown } | null;
  if (err?.retriable === true) return true;
  return err?.name === 'KafkaJSNumberOfRetriesExceeded' && (err.cause as { retriable?: unknown } | null)?.retriable === true;
};
