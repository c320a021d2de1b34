// A consumer-group member as a RecordSource, on librdkafka's cooperative-sticky protocol: the
// rebalance callback names exactly the partitions gained or lost, which are the port's
// onAssigned/onRevoked. A lost partition's running batch is let finish (it sees isActive()
// false and commits what it did) before librdkafka is told to let the partition go.
import type { LibrdKafkaError, TopicPartition } from '@confluentinc/kafka-javascript';
import type { Logger } from '../../logger.js';
import { OffsetCommitter } from '../offsetCommitter.js';
import { pooledSink, senderPool } from '../pooledSink.js';
import type { Assignment, RecordSource, Sink, SourceHandlers, SourceOptions } from '../port.js';
import { topicAccess } from '../refusals.js';
import { call, disconnectOnce, rdError, watchErrors, type Consumer, type RdConfig } from './client.js';
import { consumeLoop, type ConsumeLoop } from './consumeLoop.js';
import { Feeds } from './feeds.js';
import type { RdKafka } from './native.js';
import { openSender, openTransactional } from './producer.js';
import { toInRecord } from './records.js';

const ASSIGN = -175;
const CONSUME_SIZE = 5_000;
/** How long a revocation waits for the lost partitions' running batches. */
const REVOKE_WAIT_MS = 15_000;

const byTopic = (tps: readonly TopicPartition[]): Assignment => {
  const out = new Map<string, number[]>();
  for (const t of tps) (out.get(t.topic) ?? out.set(t.topic, []).get(t.topic)!).push(t.partition);
  return out;
};

export interface Opened {
  (c: { disconnect(): Promise<void> }): void;
}

export function groupConsumer(rd: RdKafka, base: RdConfig, groupId: string, opts: SourceOptions, log: Logger, onOpen: Opened): RecordSource {
  let handlers: SourceHandlers | undefined;
  let feeds: Feeds | undefined;
  let loop: ConsumeLoop | undefined;
  let leaving = false;
  let held: TopicPartition[] = [];

  const rebalance = (err: LibrdKafkaError | undefined, tps: TopicPartition[]) => {
    const parts = tps.map(({ topic, partition }) => ({ topic, partition }));
    if (err?.code === ASSIGN) {
      c.incrementalAssign(parts);
      if (leaving) return;
      held = held.concat(parts);
      for (const p of parts) feeds!.hold(p.topic, p.partition);
      handlers?.onAssigned?.(byTopic(parts));
      return;
    }
    void revoke(parts);
  };

  async function revoke(parts: TopicPartition[]): Promise<void> {
    const lost = new Set(parts.map((p) => `${p.topic}\t${p.partition}`));
    const mine = held.filter((h) => lost.has(`${h.topic}\t${h.partition}`));
    held = held.filter((h) => !lost.has(`${h.topic}\t${h.partition}`));
    const ended = Promise.all(parts.map((p) => feeds?.release(p.topic, p.partition)));
    await Promise.race([ended, new Promise((r) => setTimeout(r, REVOKE_WAIT_MS).unref())]);
    await committer.flush();
    if (mine.length > 0) handlers?.onRevoked?.(byTopic(mine));
    try {
      c.incrementalUnassign(parts);
    } catch (e) {
      if (c.isConnected()) log.warn({ err: (e as Error).message, groupId }, 'letting revoked partitions go failed');
    }
  }

  const c = new rd.KafkaConsumer({
    ...base,
    'group.id': groupId,
    'enable.auto.commit': false,
    'enable.auto.offset.store': false,
    // In the global config: with a topic config object as well, librdkafka ignores it here.
    'auto.offset.reset': opts.fromBeginning ? 'earliest' : 'latest',
    'isolation.level': opts.readCommitted === false ? 'read_uncommitted' : 'read_committed',
    'session.timeout.ms': opts.sessionTimeoutMs ?? 30_000,
    'heartbeat.interval.ms': 3_000,
    'partition.assignment.strategy': 'cooperative-sticky',
    'allow.auto.create.topics': false,
    rebalance_cb: rebalance,
  } as never) as Consumer;
  watchErrors(c, log.child({ groupId }), (error) => handlers?.onCrash?.({ error, restarting: false }));

  const committer = new OffsetCommitter(async (positions) => {
    if (leaving) return false;
    await call('cannot commit offsets', (cb) =>
      c.commitCb(
        positions.map((p) => ({ topic: p.topic, partition: p.partition, offset: p.nextOffset })),
        cb,
      ),
    );
    return true;
  }, log);

  const flow = {
    pause: (topic: string, partition: number) => c.pause([{ topic, partition }]),
    resume: (topic: string, partition: number) => c.resume([{ topic, partition }]),
    highWatermark: (topic: string, partition: number) => {
      try {
        return c.getWatermarkOffsets(topic, partition).highOffset;
      } catch {
        return undefined;
      }
    },
  };

  return {
    async run(h) {
      handlers = h;
      feeds = new Feeds(h, opts.concurrency ?? 1, flow, log);
      await call(`cannot connect consumer group ${groupId} to Kafka`, (cb) => c.connect({ timeout: 30_000 }, cb), base);
      c.subscribe([...opts.topics]);
      const f = feeds;
      loop = consumeLoop(
        c,
        CONSUME_SIZE,
        (messages) => {
          // Runs of one partition are handed over together (a fetch is per partition).
          let from = 0;
          for (let i = 1; i <= messages.length; i++) {
            const a = messages[from]!;
            const b = messages[i];
            if (b === undefined || b.partition !== a.partition || b.topic !== a.topic) {
              f.add(a.topic, a.partition, messages.slice(from, i).map(toInRecord));
              from = i;
            }
          }
        },
        log,
        undefined,
        (e) => {
          const access = e.code === 30 ? { operation: 'READ' as const, resource: 'group' as const, names: [groupId] } : topicAccess('READ', ...opts.topics);
          h.onCrash?.({ error: rdError(`consumer group ${groupId} failed`, e, base, access), restarting: false });
        },
      );
    },

    async sink(topics = []): Promise<Sink> {
      void topics; // librdkafka loads a topic's metadata at its first produce, off the JS thread
      const open = async () => {
        const s = await openSender(rd, base, log);
        onOpen({ disconnect: () => s.close() });
        return s;
      };
      return pooledSink(await senderPool(open, opts.concurrency ?? 1), committer);
    },

    async transactionalSink(transactionalId): Promise<Sink> {
      const tx = await openTransactional(rd, base, transactionalId, c, log);
      onOpen({ disconnect: () => tx.close() });
      let committed: number | undefined;
      return {
        begin() {
          const batch = tx.begin();
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
      // Batches running end early and commit what they did; then the group is left.
      await feeds?.stop();
      await committer.flush();
      leaving = true;
      await loop?.stop();
      const lost = held;
      held = [];
      if (lost.length > 0) handlers?.onRevoked?.(byTopic(lost));
      await disconnectOnce(c, 'cannot leave the consumer group', (cb) => c.disconnect(cb)).catch((e: unknown) =>
        log.warn({ err: e, groupId }, 'leaving the consumer group failed'),
      );
    },
  };
}
