// Reading changelog partitions from the beginning to the end they had when asked (a restore).
//
// The end is the last stable offset (read-committed). A partition is done once a record at or
// past it is read, or librdkafka reports the partition's end (partition EOF): it does so for a
// fetch that held only aborted records and transaction markers too, so a changelog whose tail
// is an aborted transaction finishes restoring.
import { setTimeout as delay } from 'node:timers/promises';
import { ERROR_CODES, LoopguardError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { readerGroupId } from '../groups.js';
import type { InRecord } from '../port.js';
import { topicAccess } from '../refusals.js';
import type { RdAdmin } from './admin.js';
import { call, disconnectOnce, rdError, type Consumer, type RdConfig } from './client.js';
import { consumeLoop } from './consumeLoop.js';
import type { RdKafka } from './native.js';
import { toInRecord } from './records.js';

/** How long stopping waits for an in-flight record before it leaves the consumer to finish alone. */
const CLOSE_WAIT_MS = 3_000;

/** Rejects when `signal` aborts (never, without one). */
function aborted(signal: AbortSignal | undefined, topic: string): Promise<never> {
  return new Promise((_, reject) => {
    const stop = () => reject(new LoopguardError(ERROR_CODES.aborted, `restore of ${topic} stopped`, { topic }));
    if (signal?.aborted) stop();
    else signal?.addEventListener('abort', stop, { once: true });
  });
}

export async function readToEnd(
  rd: RdKafka,
  base: RdConfig,
  admin: RdAdmin,
  topic: string,
  partitions: readonly number[],
  onRecord: (r: InRecord) => Promise<void> | void,
  log: Logger,
  signal?: AbortSignal,
): Promise<number> {
  const stopped = aborted(signal, topic);
  stopped.catch(() => undefined);
  const marks = await Promise.race([admin.watermarks(topic), stopped]);
  const ends = new Map<number, number>();
  for (const [partition, { low, high }] of marks) if (partitions.includes(partition) && high > low) ends.set(partition, high);
  if (ends.size === 0) return 0;
  let resolve!: () => void;
  let refuse!: (e: Error) => void;
  const done = new Promise<void>((r, j) => ((resolve = r), (refuse = j)));
  done.catch(() => undefined); // raced below; a refusal after a stop is nobody's business
  const left = new Set(ends.keys());
  const reached = (partition: number, position: number) => {
    if (left.has(partition) && position >= ends.get(partition)!) {
      left.delete(partition);
      c.pause([{ topic, partition }]);
      if (left.size === 0) resolve();
    }
  };
  // No group is joined: the partitions are assigned directly and nothing is committed.
  const c = new rd.KafkaConsumer({
    ...base,
    'group.id': readerGroupId(topic, 'restore'),
    'enable.auto.commit': false,
    'isolation.level': 'read_committed',
    'enable.partition.eof': true,
  } as never) as Consumer;
  let count = 0;
  await Promise.race([call(`cannot read ${topic}`, (cb) => c.connect({ timeout: 30_000 }, cb), base), stopped]);
  try {
    c.assign([...ends.keys()].map((partition) => ({ topic, partition, offset: -2 /* beginning */ })));
    const loop = consumeLoop(
      c,
      5_000,
      async (messages) => {
        for (const m of messages) {
          if (!left.has(m.partition) || signal?.aborted) continue;
          if (m.offset >= ends.get(m.partition)!) reached(m.partition, m.offset);
          else {
            await onRecord(toInRecord(m));
            count++;
            reached(m.partition, m.offset + 1);
          }
        }
      },
      log,
      (eof) => reached(eof.partition, eof.offset),
      (e) => refuse(rdError(`cannot read ${topic}`, e, base, topicAccess('READ', topic))),
    );
    try {
      await Promise.race([done, stopped]);
    } finally {
      // A record stuck in onRecord (a registry that hangs) must not hold up a stop: wait a
      // little, then let the consumer finish closing on its own.
      await Promise.race([loop.stop(), delay(CLOSE_WAIT_MS)]);
    }
  } finally {
    const closed = disconnectOnce(c, 'disconnect', (cb) => c.disconnect(cb)).catch(() => undefined);
    await Promise.race([closed, delay(CLOSE_WAIT_MS)]);
  }
  return count;
}
