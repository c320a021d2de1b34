// Admin operations on one lazily created librdkafka admin client. What its admin API lacks
// (setting a group's offsets) is done by a consumer of that group, which never joins it.
import { setTimeout as delay } from 'node:timers/promises';
import type { IAdminClient } from '@confluentinc/kafka-javascript';
import { ERROR_CODES, LoopguardError } from '../../errors.js';
import type { AdminOps, TopicSpec } from '../port.js';
import { topicAccess, type Access } from '../refusals.js';
import { call, disconnectOnce, rdError, type Consumer, type RdConfig } from './client.js';
import type { RdKafka } from './native.js';

const TIMEOUT_MS = 30_000;
const TOPIC_ALREADY_EXISTS = 36;
const UNKNOWN_TOPIC = 3;
/** librdkafka's "no broker reached": transport failure, all brokers down, timed out. */
const UNREACHABLE = [-195, -187, -185];

export class RdAdmin implements AdminOps {
  private client: IAdminClient | undefined;
  /** Whether a call on the admin client has succeeded yet. */
  private reached = false;

  constructor(
    private readonly rd: RdKafka,
    private readonly config: RdConfig,
  ) {}

  private get admin(): IAdminClient {
    this.client ??= this.rd.AdminClient.create(this.config as never);
    return this.client;
  }

  /**
   * A call on the admin client. Until one has succeeded, a failure to reach any broker is said
   * as kafkajs says it: `cannot connect to Kafka at <brokers>`, naming where we looked.
   */
  private call<T = void>(what: string, run: Parameters<typeof call>[1], access?: Access): Promise<T> {
    return call<T>(what, run, this.config, access).then(
      (v) => {
        this.reached = true;
        return v;
      },
      (e: LoopguardError) => {
        const code = (e.context as { code?: number }).code ?? 0;
        if (this.reached || !UNREACHABLE.includes(code)) throw e;
        throw rdError(`cannot connect to Kafka at ${String(this.config['bootstrap.servers'])}`, e.cause);
      },
    );
  }

  private listTopics(): Promise<string[]> {
    return this.call('cannot list topics', (cb) => this.admin.listTopics({ timeout: TIMEOUT_MS }, cb));
  }

  /** The partitions of `topic`; none when it does not exist. A topic this client may not DESCRIBE is refused. */
  private async partitionsOf(topic: string): Promise<number[]> {
    const what = `cannot describe topic ${topic}`;
    const [d] = await this.call<Array<{ partitions: Array<{ partition: number }>; error?: { code: number } }>>(what, (cb) =>
      this.admin.describeTopics([topic], { timeout: TIMEOUT_MS }, cb),
    );
    if (d?.error !== undefined && d.error.code !== UNKNOWN_TOPIC) throw rdError(what, d.error, this.config, topicAccess('DESCRIBE', topic));
    return (d?.partitions ?? []).map((p) => p.partition);
  }

  /** Offsets per partition for one spec (isolation read-committed: LATEST is the last stable offset). */
  private async listOffsets(topic: string, spec: unknown, what: string): Promise<Map<number, number>> {
    const partitions = await this.partitionsOf(topic);
    const res = await this.call<Array<{ partition: number; offset: number }>>(what, (cb) =>
      this.admin.listOffsets(
        partitions.map((partition) => ({ topic, partition, offset: spec as never })),
        { timeout: TIMEOUT_MS, isolationLevel: 1 as never },
        cb,
      ),
    );
    return new Map(res.map((r) => [r.partition, Number(r.offset)]));
  }

  async watermarks(topic: string): Promise<Map<number, { low: number; high: number }>> {
    const what = `cannot read the offsets of ${topic}`;
    const [low, high] = await Promise.all([this.listOffsets(topic, this.rd.OffsetSpec.EARLIEST, what), this.listOffsets(topic, this.rd.OffsetSpec.LATEST, what)]);
    return new Map([...high].map(([p, h]) => [p, { low: low.get(p) ?? 0, high: h }]));
  }

  async partitionCounts(topics: readonly string[]): Promise<Map<string, number>> {
    const existing = new Set(await this.listTopics());
    const out = new Map<string, number>();
    for (const t of topics.filter((x) => existing.has(x))) out.set(t, (await this.partitionsOf(t)).length);
    // The list holds only the topics this client may DESCRIBE: one it may not is asked for by
    // name, and the broker says which it is (missing, or not for this client).
    for (const t of topics.filter((x) => !existing.has(x))) await this.partitionsOf(t);
    return out;
  }

  async createTopics(specs: readonly TopicSpec[]): Promise<string[]> {
    const existing = new Set(await this.listTopics());
    const missing = specs.filter((s) => !existing.has(s.topic));
    const created: string[] = [];
    for (const s of missing) {
      const made = await this.call(
        'cannot create topics',
        (cb) => this.admin.createTopic({ topic: s.topic, num_partitions: s.partitions, replication_factor: s.replicationFactor, config: { ...s.config } }, TIMEOUT_MS, cb),
        topicAccess('CREATE', s.topic),
      ).then(
        () => true,
        (e: LoopguardError) => {
          if ((e.context as { code?: number }).code === TOPIC_ALREADY_EXISTS) return false;
          throw e;
        },
      );
      if (made) created.push(s.topic);
    }
    for (const s of missing) await this.awaitLeaders(s.topic, s.partitions);
    return created;
  }

  /** A topic just created has no leaders for a moment; producing to it then fails. */
  private async awaitLeaders(topic: string, partitions: number): Promise<void> {
    const deadline = Date.now() + TIMEOUT_MS;
    for (;;) {
      const d = await this.call<Array<{ partitions: Array<{ leader: unknown }> }>>(`cannot describe ${topic}`, (cb) =>
        this.admin.describeTopics([topic], { timeout: TIMEOUT_MS }, cb),
      ).catch(() => []);
      const ps = d[0]?.partitions ?? [];
      if (ps.length >= partitions && ps.every((p) => p.leader !== null && p.leader !== undefined)) return;
      if (Date.now() > deadline) throw new LoopguardError(ERROR_CODES.kafka, `topic ${topic} has no leaders ${TIMEOUT_MS} ms after creation`, { topic }, true);
      await delay(100);
    }
  }

  async deleteTopics(topics: readonly string[]): Promise<void> {
    const existing = new Set(await this.listTopics());
    const doomed = topics.filter((t) => existing.has(t));
    for (const t of doomed) await this.call('cannot delete topics', (cb) => this.admin.deleteTopic(t, TIMEOUT_MS, cb));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const left = new Set(await this.listTopics());
      if (doomed.every((t) => !left.has(t))) return;
      await delay(200);
    }
    throw new LoopguardError(ERROR_CODES.kafka, `topics still listed a minute after deletion: ${doomed.join(', ')}`, { topics: doomed }, true);
  }

  async groupMembers(groupId: string): Promise<number> {
    const res = await this.call<{ groups: Array<{ members: unknown[] }> }>(`cannot describe consumer group ${groupId}`, (cb) =>
      this.admin.describeGroups([groupId], { timeout: TIMEOUT_MS }, cb),
    );
    return res.groups[0]?.members.length ?? 0;
  }

  async committedOffsets(groupId: string, topic: string): Promise<Map<number, number>> {
    const partitions = (await this.partitionsOf(topic)).map((partition) => ({ topic, partition }));
    const res = await this.call<Array<{ partitions: Array<{ partition: number; offset: number }> }>>(`cannot read the committed offsets of ${groupId}`, (cb) =>
      this.admin.listConsumerGroupOffsets([{ groupId, partitions }], { timeout: TIMEOUT_MS }, cb),
    );
    // librdkafka says -1001 (invalid) where kafkajs and the port say -1: none.
    return new Map((res[0]?.partitions ?? []).map((p) => [p.partition, p.offset < 0 ? -1 : Number(p.offset)]));
  }

  async offsetsForTime(topic: string, ts: number): Promise<Map<number, number>> {
    const marks = await this.watermarks(topic);
    const found = await this.listOffsets(topic, new this.rd.OffsetSpec(ts), `cannot look up offsets by time in ${topic}`);
    return new Map([...found].map(([p, o]) => [p, o < 0 ? marks.get(p)!.high : o]));
  }

  async setCommittedOffsets(groupId: string, topic: string, offsets: ReadonlyMap<number, number>): Promise<void> {
    const what = `cannot set the offsets of ${groupId}`;
    const c = new this.rd.KafkaConsumer({ ...this.config, 'group.id': groupId, 'enable.auto.commit': false } as never) as Consumer;
    await this.call(what, (cb) => c.connect({ timeout: TIMEOUT_MS }, cb));
    try {
      await this.call(what, (cb) =>
        c.commitCb(
          [...offsets].map(([partition, offset]) => ({ topic, partition, offset })),
          cb,
        ),
      );
    } finally {
      await disconnectOnce(c, 'disconnect', (cb) => c.disconnect(cb)).catch(() => undefined);
    }
  }

  /** Best effort: a group that outlives us is only clutter. */
  async deleteGroup(groupId: string): Promise<void> {
    await this.call(`cannot delete consumer group ${groupId}`, (cb) => this.admin.deleteGroups([groupId], { timeout: TIMEOUT_MS }, cb)).catch(() => undefined);
  }

  close(): Promise<void> {
    this.client?.disconnect();
    this.client = undefined;
    return Promise.resolve();
  }
}
