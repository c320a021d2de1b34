// Producers: an idempotent one whose sends resolve on their delivery reports, and a
// transactional one per exactly-once partition whose commit carries the input offset.
import { setTimeout as delay } from 'node:timers/promises';
import type { KafkaConsumer, Producer } from '@confluentinc/kafka-javascript';
import type { Logger } from '../../logger.js';
import type { OutRecord, Sender, SinkBatch } from '../port.js';
import { topicAccess } from '../refusals.js';
import { call, disconnectOnce, rdError, watchErrors, type RdConfig } from './client.js';
import type { RdKafka } from './native.js';
import { headerList } from './records.js';

const TIMEOUT_MS = 30_000;
const QUEUE_FULL = -184;

const producerConfig = (base: RdConfig): RdConfig => ({
  ...base,
  'enable.idempotence': true,
  acks: -1,
  'linger.ms': 2,
  'compression.type': 'none',
  'queue.buffering.max.messages': 1_000_000,
  'queue.buffering.max.kbytes': 1_048_576,
  'message.max.bytes': 1_000_000 + 64 * 1024,
});

/** Waiting deliveries of one send: it settles once all are reported. */
interface Pending {
  left: number;
  error: Error | undefined;
  settle(): void;
}

/** Enqueues one record; a full local queue (the broker slower than us) is waited out. */
async function produce(p: Producer, r: OutRecord, opaque: unknown): Promise<void> {
  for (;;) {
    try {
      p.produce(r.topic, r.partition, r.value, r.key, undefined, opaque, headerList(r.headers));
      return;
    } catch (e) {
      if ((e as { code?: number }).code !== QUEUE_FULL) throw rdError('cannot produce', e);
      await delay(5);
    }
  }
}

async function connected(p: Producer, what: string): Promise<void> {
  await call(what, (cb) => p.connect({ timeout: TIMEOUT_MS }, cb));
  p.setPollInBackground(true);
}

export type OpenSender = Sender & { readonly producer: Producer };

export async function openSender(rd: RdKafka, base: RdConfig, log: Logger): Promise<OpenSender> {
  const p: Producer = new rd.Producer({ ...producerConfig(base), dr_cb: true } as never);
  watchErrors(p, log);
  p.on('delivery-report', (err, report) => {
    const pending = report.opaque as Pending;
    if (err && pending.error === undefined) pending.error = rdError(`a record to ${report.topic} was not delivered`, err, base, topicAccess('WRITE', report.topic));
    if (--pending.left === 0) pending.settle();
  });
  await connected(p, 'cannot connect a producer to Kafka');
  const send = async (records: readonly OutRecord[]): Promise<void> => {
    if (records.length === 0) return;
    let settle!: () => void;
    const done = new Promise<void>((r) => (settle = r));
    const pending: Pending = { left: records.length, error: undefined, settle };
    for (const r of records) await produce(p, r, pending);
    await done;
    if (pending.error !== undefined) throw pending.error;
  };
  return { producer: p, send, close: () => disconnect(p) };
}

export function disconnect(p: Producer): Promise<void> {
  return disconnectOnce(p, 'cannot disconnect a producer', (cb) => p.disconnect(TIMEOUT_MS, cb)).catch(() => undefined);
}

/** One transaction per batch: its records, and the input offset of the consumer's group. */
export interface TransactionalProducer {
  begin(): SinkBatch;
  close(): Promise<void>;
}

/**
 * initTransactions fences any older producer with this id and aborts its open transaction
 * before it returns: from then on a read-committed reader sees everything the predecessor
 * will ever commit.
 */
export async function openTransactional(rd: RdKafka, base: RdConfig, transactionalId: string, consumer: KafkaConsumer, log: Logger): Promise<TransactionalProducer> {
  const p: Producer = new rd.Producer({ ...producerConfig(base), 'transactional.id': transactionalId, 'retry.backoff.ms': 20 } as never);
  watchErrors(p, log.child({ transactionalId }));
  await connected(p, 'cannot connect a transactional producer to Kafka');
  await call(`cannot fence transactional id ${transactionalId}`, (cb) => p.initTransactions(TIMEOUT_MS, cb), base, {
    operation: 'WRITE',
    resource: 'transactional id',
    names: [transactionalId],
  });
  const begin = (): SinkBatch => {
    let open = false;
    let chain: Promise<void> = Promise.resolve();
    const abort = async () => {
      await chain.catch(() => undefined);
      if (!open) return;
      open = false;
      // An abort that fails leaves the transaction to time out, and the next initTransactions
      // (a restart) aborts it. Worth knowing, not worth masking why the batch failed.
      await call('abort', (cb) => p.abortTransaction(TIMEOUT_MS, cb)).catch((e: unknown) => log.warn({ err: e, transactionalId }, 'aborting a failed transaction failed too'));
    };
    const ensureOpen = async () => {
      if (open) return;
      await call('cannot begin a transaction', (cb) => p.beginTransaction(cb));
      open = true;
    };
    return {
      write(stages) {
        chain = chain.then(async () => {
          await ensureOpen();
          for (const stage of stages) for (const r of stage) await produce(p, r, undefined);
        });
        chain.catch(() => undefined); // it surfaces from commit
      },
      async commit(position) {
        try {
          await chain;
          await ensureOpen();
          const offsets = [{ topic: position.topic, partition: position.partition, offset: position.nextOffset }];
          await call('cannot send offsets to the transaction', (cb) => p.sendOffsetsToTransaction(offsets, consumer, TIMEOUT_MS, cb));
          await call('cannot commit the transaction', (cb) => p.commitTransaction(TIMEOUT_MS, cb));
          open = false;
        } catch (e) {
          await abort();
          throw e;
        }
      },
      abandon: abort,
    };
  };
  return { begin, close: () => disconnect(p) };
}
