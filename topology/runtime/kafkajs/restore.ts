// Reading changelog partitions from the beginning to the end they had when asked (a restore).
//
// The end is the last stable offset (read-committed), and a partition is done once the
// consumer's position reaches it. kafkajs calls eachBatch only for batches with visible
// records, so the position is taken from END_BATCH_PROCESS, which kafkajs also emits for a
// fetch holding only aborted records and transaction markers: a changelog whose tail is an
// aborted transaction must finish restoring too.
import { setTimeout as delay } from 'node:timers/promises';
import type { Consumer } from 'kafkajs';
import { ERROR_CODES, LoopguardError } from '../../errors.js';
import { readerGroupId } from '../groups.js';
import type { InRecord } from '../port.js';
import { topicAccess } from '../refusals.js';
import type { KafkajsAdmin } from './admin.js';
import { kafkaCall, kafkaError, type KafkaClient } from './client.js';
import { toInRecord } from './records.js';

/** How long stopping waits for an in-flight batch before it leaves the consumer to finish alone. */
const CLOSE_WAIT_MS = 3_000;

/** Rejects when `signal` aborts (never, without one). */
function aborted(signal: AbortSignal | undefined, topic: string): Promise<never> {
  return new Promise((_, reject) => {
    const stop = () => reject(new LoopguardError(ERROR_CODES.aborted, `restore of ${topic} stopped`, { topic }));
    if (signal?.aborted) stop();
    else signal?.addEventListener('abort', stop, { once: true });
  });
}

/** Resolves once every partition's position has reached its end. */
function tracker(ends: Map<number, number>) {
  let resolve!: () => void;
  const done = new Promise<void>((r) => {
    resolve = r;
  });
  const left = new Set(ends.keys());
  if (left.size === 0) resolve();
  return {
    done,
    isDone: (partition: number) => !left.has(partition),
    at(partition: number, position: number) {
      if (left.has(partition) && position >= ends.get(partition)!) {
        left.delete(partition);
        if (left.size === 0) resolve();
      }
    },
  };
}

export async function readToEnd(
  kafka: KafkaClient,
  admin: KafkajsAdmin,
  topic: string,
  partitions: readonly number[],
  onRecord: (r: InRecord) => Promise<void> | void,
  signal?: AbortSignal,
): Promise<number> {
  const stopped = aborted(signal, topic);
  stopped.catch(() => undefined);
  const marks = await Promise.race([admin.watermarks(topic), stopped]);
  const ends = new Map<number, number>();
  for (const [partition, { low, high }] of marks) if (partitions.includes(partition) && high > low) ends.set(partition, high);
  if (ends.size === 0) return 0;
  const others = [...marks.keys()].filter((p) => !ends.has(p));
  const progress = tracker(ends);
  const groupId = readerGroupId(topic, 'restore');
  const c: Consumer = kafka.consumer({ groupId, readUncommitted: false, allowAutoTopicCreation: false, maxWaitTimeInMs: 500 });
  let count = 0;
  // A group of one gets every partition of the topic; only those being restored are read.
  c.on(c.events.GROUP_JOIN, () => {
    if (others.length > 0) c.pause([{ topic, partitions: others }]);
  });
  c.on(c.events.END_BATCH_PROCESS, ({ payload }) => {
    if (payload.topic === topic) progress.at(payload.partition, Number(payload.lastOffset) + 1);
  });
  const crashed = new Promise<never>((_, reject) =>
    c.on(c.events.CRASH, ({ payload }) => reject(kafkaError(`reading ${topic} failed`, payload.error, kafka, { operation: 'READ', resource: 'group', names: [groupId] }))),
  );
  crashed.catch(() => undefined);
  try {
    await Promise.race([
      stopped,
      kafkaCall(`cannot read ${topic}`, async () => {
        await kafkaCall(`cannot read ${topic}`, () => c.connect(), kafka);
        await kafkaCall(`cannot read ${topic}`, () => c.subscribe({ topic, fromBeginning: true }), kafka, topicAccess('READ', topic));
        await c.run({
          autoCommit: false,
          eachBatch: async ({ batch, pause }) => {
            if (progress.isDone(batch.partition) || signal?.aborted) {
              pause();
              return;
            }
            const end = ends.get(batch.partition)!;
            for (const m of batch.messages) {
              if (Number(m.offset) >= end || signal?.aborted) break;
              await onRecord(toInRecord(topic, batch.partition, m));
              count++;
            }
          },
        });
      }),
    ]);
    await Promise.race([progress.done, crashed, stopped]);
  } finally {
    // A batch stuck in onRecord (a registry that hangs) must not hold up a stop: wait a little,
    // then let the consumer finish closing on its own.
    const closed = c
      .disconnect()
      .catch(() => undefined)
      .then(() => admin.deleteGroup(groupId));
    await Promise.race([closed, delay(CLOSE_WAIT_MS)]);
  }
  return count;
}
