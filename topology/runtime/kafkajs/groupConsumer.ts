// A consumer-group member as a RecordSource. kafkajs reports assignments only as the whole
// assignment of each join, so this diffs successive joins into gained and lost partitions;
// after a crash kafkajs has left the group, so everything held counts as lost.
import { setTimeout as delay } from 'node:timers/promises';
import type { Consumer, EachBatchPayload } from 'kafkajs';
import type { Logger } from '../../logger.js';
import type { Assignment, RecordSource, Sink, SourceHandlers, SourceOptions } from '../port.js';
import { topicAccess } from '../refusals.js';
import { kafkaCall, kafkaError, type KafkaClient } from './client.js';
import { OffsetCommitter } from '../offsetCommitter.js';
import { pooledSink, senderPool } from '../pooledSink.js';
import { openAlternating, openSender } from './producer.js';
import { toInRecord } from './records.js';

const HEARTBEAT_INTERVAL_MS = 3_000;

/** `a` minus `b`, by topic. */
function minus(a: Assignment, b: Assignment): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const [topic, ps] of a) {
    const other = new Set(b.get(topic) ?? []);
    const left = ps.filter((p) => !other.has(p));
    if (left.length > 0) out.set(topic, left);
  }
  return out;
}

/**
 * Settles with `work`, heartbeating meanwhile: kafkajs heartbeats only between batches, and a
 * batch that waits (for a restore, a slow broker) must not cost the member its partitions.
 */
async function heartbeatWhile<T>(work: Promise<T>, heartbeat: () => Promise<void>): Promise<T> {
  let settled = false;
  const result = work.finally(() => {
    settled = true;
  });
  while (!settled) {
    await Promise.race([result.catch(() => undefined), delay(HEARTBEAT_INTERVAL_MS)]);
    // A heartbeat fails during a rebalance; the batch then learns it from isActive().
    if (!settled) await heartbeat().catch(() => undefined);
  }
  return result;
}

export function groupConsumer(kafka: KafkaClient, groupId: string, opts: SourceOptions, log: Logger, onOpen: (c: { disconnect(): Promise<void> }) => void): RecordSource {
  const c: Consumer = kafka.consumer({
    groupId,
    readUncommitted: opts.readCommitted === false,
    sessionTimeout: opts.sessionTimeoutMs ?? 30_000,
    heartbeatInterval: HEARTBEAT_INTERVAL_MS,
    allowAutoTopicCreation: false,
  });
  onOpen(c);
  const groupAccess = { operation: 'READ', resource: 'group', names: [groupId] } as const;
  let held: Assignment = new Map();
  let leaving = false;
  const committer = new OffsetCommitter(async (positions) => {
    if (leaving) return false;
    await c.commitOffsets(positions.map((p) => ({ topic: p.topic, partition: p.partition, offset: String(p.nextOffset) })));
    return true;
  }, log);
  let revoke: ((lost: Assignment) => void) | undefined;
  const revokeAll = () => {
    const lost = held;
    held = new Map();
    if (lost.size > 0) revoke?.(lost);
  };

  async function batch(h: SourceHandlers, p: EachBatchPayload): Promise<void> {
    const { batch: b } = p;
    const records = b.messages.map((m) => toInRecord(b.topic, b.partition, m));
    // The fold asks before every record, and kafkajs's isStale() builds a JSON key each time:
    // asked once in 64 calls (a batch that stops being active does not become active again).
    let asked = 0;
    let active = true;
    const isActive = () => {
      if (active && asked++ % 64 === 0) active = p.isRunning() && !p.isStale();
      return active;
    };
    const done = await heartbeatWhile(h.onBatch({ topic: b.topic, partition: b.partition, records, highWatermark: Number(b.highWatermark), isActive }), () => p.heartbeat());
    if (done !== undefined) p.resolveOffset(String(done));
  }

  return {
    async run(h) {
      revoke = h.onRevoked;
      await kafkaCall(`cannot connect consumer group ${groupId} to Kafka`, () => c.connect(), kafka);
      // One at a time: kafkajs does not say which topic it was refused.
      for (const topic of opts.topics)
        await kafkaCall(`cannot subscribe to ${topic}`, () => c.subscribe({ topic, fromBeginning: opts.fromBeginning }), kafka, topicAccess('READ', topic));
      c.on(c.events.GROUP_JOIN, (e) => {
        const now: Assignment = new Map(Object.entries(e.payload.memberAssignment as Record<string, number[]>));
        const [lost, gained] = [minus(held, now), minus(now, held)];
        held = now;
        if (lost.size > 0) h.onRevoked?.(lost);
        if (gained.size > 0) h.onAssigned?.(gained);
      });
      c.on(c.events.CRASH, (e) => {
        revokeAll();
        const error = kafkaError(`consumer group ${groupId} failed`, e.payload.error, kafka, groupAccess);
        const report = { error, restarting: e.payload.restart };
        if (h.onCrash) h.onCrash(report);
        else log.error({ err: report.error, restarting: report.restarting, groupId }, 'consumer crashed');
      });
      await kafkaCall(
        `cannot start consumer group ${groupId}`,
        () =>
          c.run({
            autoCommit: false,
            eachBatchAutoResolve: false,
            partitionsConsumedConcurrently: opts.concurrency ?? 1,
            eachBatch: (p) => batch(h, p),
          }),
        kafka,
        groupAccess,
      );
    },

    async sink(topics = []): Promise<Sink> {
      const open = async () => {
        const s = await openSender(kafka, topics);
        onOpen(s.producer);
        return s;
      };
      return pooledSink(await senderPool(open, opts.concurrency ?? 1), committer);
    },

    async transactionalSink(transactionalId, topics = []): Promise<Sink> {
      const tx = await openAlternating(kafka, transactionalId, log, topics);
      onOpen({ disconnect: () => tx.close() });
      let committed: number | undefined;
      return {
        begin() {
          const batch = tx.begin(groupId);
          return {
            write: (stages) => batch.write(stages),
            async commit(position) {
              await batch.commit(position);
              committed = position.nextOffset;
            },
            abandon: () => batch.abandon(),
          };
        },
        committedOffset: () => committed,
        close: () => tx.close(),
      };
    },

    async stop() {
      // kafkajs drops commits once its runner stops, and then leaves the group: what is
      // queued goes first. A batch still running commits nothing more; its records are
      // re-read by the next owner, which skips what the changelog covers.
      await committer.flush();
      leaving = true;
      await c.stop();
      revokeAll();
      await c.disconnect();
    },
  };
}
