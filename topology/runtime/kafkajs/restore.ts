// Reading changelog partitions from the beginning to their current end (a restore).
import { randomUUID } from 'node:crypto';
import type { InRecord } from '../port.js';
import type { KafkajsAdmin } from './admin.js';
import { kafkaCall, type KafkaClient } from './client.js';
import { toInRecord } from './records.js';

export async function readToEnd(kafka: KafkaClient, admin: KafkajsAdmin, topic: string, partitions: readonly number[], onRecord: (r: InRecord) => Promise<void> | void): Promise<number> {
  const ends = new Map<number, number>();
  for (const [partition, { low, high }] of await admin.watermarks(topic)) {
    if (partitions.includes(partition) && high > low) ends.set(partition, high);
  }
  if (ends.size === 0) return 0;
  const groupId = `loopguard-restore-${randomUUID()}`;
  const c = kafka.consumer({ groupId, readUncommitted: false, allowAutoTopicCreation: false });
  let count = 0;
  try {
    await kafkaCall(`cannot read ${topic}`, async () => {
      await c.connect();
      await c.subscribe({ topic, fromBeginning: true });
    });
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
    await admin.deleteGroup(groupId);
  }
  return count;
}
