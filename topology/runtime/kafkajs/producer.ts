// Producers: an idempotent one for plain sends, and a transactional one per exactly-once
// partition. Both are the kafkajs producer with the same settings.
import { setTimeout as delay } from 'node:timers/promises';
import type { Producer, Transaction } from 'kafkajs';
import type { Logger } from '../../logger.js';
import type { OutRecord, Sender, SinkBatch } from '../port.js';
import { topicAccess, type Access } from '../refusals.js';
import { kafkaCall, type KafkaClient } from './client.js';
import { kafkajs } from './patches.js';
import { withCachedCoordinators } from './coordinators.js';
import { chunks, topicMessages } from './records.js';

const { CompressionTypes, Partitioners } = kafkajs;

// Every record carries its partition, so the partitioner is never consulted. An idempotent
// producer must not give up retrying (kafkajs warns otherwise); each attempt is bounded.
const producerConfig = () => ({
  idempotent: true,
  maxInFlightRequests: 1,
  allowAutoTopicCreation: false,
  createPartitioner: Partitioners.DefaultPartitioner,
  retry: { retries: Number.MAX_SAFE_INTEGER, maxRetryTime: 5_000 },
});

/** Sends in chunks, in order: no request exceeds the broker's limit, and chunk n+1 waits for n. */
async function sendAll(
  send: (req: { acks: number; compression?: number; topicMessages: ReturnType<typeof topicMessages> }) => Promise<unknown>,
  records: readonly OutRecord[],
): Promise<void> {
  for (const chunk of chunks(records)) await send({ acks: -1, compression: CompressionTypes.None, topicMessages: topicMessages(chunk) });
}

export type OpenSender = Sender & { readonly producer: Producer };

/** What writing `records` needs: WRITE on their topics (kafkajs does not say which one it was refused). */
const writeAccess = (records: readonly OutRecord[]): Access => topicAccess('WRITE', ...new Set(records.map((r) => r.topic)));

/**
 * `topics`: where it will send. kafkajs loads a topic's metadata (a request to the broker) at
 * its first send there; loading it here keeps that off the first batch's path.
 */
export async function openSender(kafka: KafkaClient, topics: readonly string[] = []): Promise<OpenSender> {
  const p = kafka.producer(producerConfig());
  await kafkaCall('cannot connect a producer to Kafka', () => p.connect(), kafka);
  // A batch without messages: the metadata, and no request to produce anything.
  if (topics.length > 0)
    await kafkaCall(
      'cannot load topic metadata',
      () => p.sendBatch({ acks: -1, topicMessages: topics.map((topic) => ({ topic, messages: [] })) }),
      kafka,
      topicAccess('WRITE', ...topics),
    );
  return {
    producer: p,
    send: (records) => kafkaCall('cannot send records', () => sendAll((r) => p.sendBatch(r), records), kafka, writeAccess(records)),
    close: () => p.disconnect(),
  };
}

/** One transaction per batch: its records, and the input offset of `groupId`. */
export interface TransactionalProducer {
  begin(groupId: string): SinkBatch;
  close(): Promise<void>;
}

/**
 * The coordinator answers CONCURRENT_TRANSACTIONS to the first request of a transaction while
 * it is still writing the previous one's commit markers, which takes milliseconds. kafkajs
 * retries it like any error, after its initial retry time (200 ms here), so every transaction
 * but the first waited ~200 ms; the Java client retries it after 20 ms.
 */
const TRANSACTION_RETRY = { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 20, maxRetryTime: 5_000 };
const CONCURRENT_RETRIES = 8;

/** kafkajs retries AddPartitionsToTxn but not AddOffsetsToTxn: a transaction with no records starts with the latter. */
async function sendOffsetsRetrying(send: () => Promise<void>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (e) {
      if ((e as { type?: string }).type !== 'CONCURRENT_TRANSACTIONS' || attempt >= CONCURRENT_RETRIES) throw e;
      await delay(TRANSACTION_RETRY.initialRetryTime * 2 ** attempt);
    }
  }
}

export async function openTransactional(kafka: KafkaClient, transactionalId: string, log: Logger, topics: readonly string[] = []): Promise<TransactionalProducer> {
  const p = withCachedCoordinators(kafka, () => kafka.producer({ ...producerConfig(), retry: TRANSACTION_RETRY, transactionalId }));
  await kafkaCall('cannot connect a transactional producer to Kafka', () => p.connect(), kafka);
  // kafkajs sends the transactional id (InitProducerId) only when the first transaction
  // begins, not on connect. Beginning one now bumps the epoch, which fences an older producer
  // with this id, and the coordinator answers only once it has aborted that producer's open
  // transaction; aborting our empty one sends nothing. From here on, a read-committed reader
  // sees everything the predecessor will ever commit.
  const fence = await kafkaCall(`cannot fence transactional id ${transactionalId}`, () => p.transaction(), kafka, {
    operation: 'WRITE',
    resource: 'transactional id',
    names: [transactionalId],
  });
  // Nothing is sent in it but the metadata of the topics it will write (see openSender).
  if (topics.length > 0)
    await kafkaCall(
      'cannot load topic metadata',
      () => fence.sendBatch({ acks: -1, topicMessages: topics.map((topic) => ({ topic, messages: [] })) }),
      kafka,
      topicAccess('WRITE', ...topics),
    );
  await fence.abort();
  // Writes are chained: kafkajs sends a transaction's requests one after the other anyway,
  // and a write that fails must keep the ones after it from being sent at all.
  const begin = (groupId: string): SinkBatch => {
    let tx: Transaction | undefined;
    let chain: Promise<void> = Promise.resolve();
    const open = async () => (tx ??= await p.transaction());
    const abort = async () => {
      await chain.catch(() => undefined);
      // An abort that fails leaves the transaction to time out, and the next InitProducerId (a
      // restart) aborts it. Worth knowing, not worth masking why the batch failed.
      if (tx !== undefined) await tx.abort().catch((abortError: unknown) => log.warn({ err: abortError, transactionalId }, 'aborting a failed transaction failed too'));
    };
    return {
      write(stages) {
        const records = stages.flat();
        chain = chain.then(async () => {
          const t = await open();
          await kafkaCall('cannot send records in a transaction', () => sendAll((r) => t.sendBatch(r), records), kafka, writeAccess(records));
        });
        chain.catch(() => undefined); // it surfaces from commit
      },
      async commit(position) {
        try {
          await chain;
          const t = await open();
          await sendOffsetsRetrying(() =>
            t.sendOffsets({
              consumerGroupId: groupId,
              topics: [{ topic: position.topic, partitions: [{ partition: position.partition, offset: String(position.nextOffset) }] }],
            }),
          );
          await t.commit();
        } catch (e) {
          await abort();
          throw e;
        }
      },
      abandon: abort,
    };
  };
  return {
    begin,
    close: () => p.disconnect(),
  };
}

/**
 * Two transactional producers, `transactionalId` and `transactionalId.b`, taking one batch's
 * transaction each in turn. A transaction's commit returns before the coordinator has written
 * its markers, and until it has, the next transaction of the same producer is refused
 * (CONCURRENT_TRANSACTIONS: a failed request, a metadata refresh and a 20 ms wait, on most
 * back-to-back transactions); the other producer's next transaction does not wait for them.
 * Batches of one partition still run one at a time, so their transactions commit in order;
 * a read-committed reader sees them in log order. Opening both fences both, so whoever owns
 * the partition next still fences this instance completely.
 */
export async function openAlternating(kafka: KafkaClient, transactionalId: string, log: Logger, topics: readonly string[] = []): Promise<TransactionalProducer> {
  const opened = await Promise.allSettled([openTransactional(kafka, transactionalId, log, topics), openTransactional(kafka, `${transactionalId}.b`, log, topics)]);
  const producers = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  const failed = opened.find((o) => o.status === 'rejected');
  if (failed !== undefined) {
    for (const p of producers) await p.close().catch(() => undefined);
    throw failed.reason;
  }
  let turn = 0;
  return {
    begin: (groupId) => producers[turn++ % producers.length]!.begin(groupId),
    close: async () => {
      for (const p of producers) await p.close();
    },
  };
}
