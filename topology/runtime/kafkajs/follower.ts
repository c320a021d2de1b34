// A PartitionFollower: a group of one (its own id), so it is assigned every partition of the
// topic, pauses them all at once, and resumes each only when asked to follow it.
import type { Consumer } from 'kafkajs';
import { readerGroupId } from '../groups.js';
import type { PartitionFollower } from '../port.js';
import { topicAccess } from '../refusals.js';
import type { KafkajsAdmin } from './admin.js';
import { kafkaCall, type KafkaClient } from './client.js';
import { toInRecord } from './records.js';

export function follower(kafka: KafkaClient, admin: KafkajsAdmin, topic: string, onOpen: (c: { disconnect(): Promise<void> }) => void): PartitionFollower {
  const groupId = readerGroupId(topic, 'reader');
  const c: Consumer = kafka.consumer({ groupId, readUncommitted: false, allowAutoTopicCreation: false, maxWaitTimeInMs: 100 });
  onOpen(c);
  const followed = new Map<number, Promise<void>>();
  /** Per followed partition, the next offset to read: where a rejoin resumes it. */
  const positions = new Map<number, string>();
  let joins = 0;
  const what = `cannot follow ${topic}`;
  return {
    async start(onRecord) {
      await kafkaCall(what, () => c.connect(), kafka);
      await kafkaCall(what, () => c.subscribe({ topic, fromBeginning: false }), kafka, topicAccess('READ', topic));
      await kafkaCall(
        what,
        async () => {
          // kafkajs rejoins the group after a broker outage (and restarts a crashed consumer
          // itself), starting every partition afresh from its end: each join pauses them all
          // again and resumes the followed ones where they were, so no decision written while
          // the client was away from the group is skipped. A group the client may not join
          // ends the consumer (a CRASH kafkajs does not restart from) before it ever joins.
          const joined = new Promise<void>((resolve, reject) => {
            c.on(c.events.GROUP_JOIN, () => {
              c.pause([{ topic }]);
              if (joins++ > 0)
                for (const [partition, offset] of positions) {
                  c.seek({ topic, partition, offset });
                  c.resume([{ topic, partitions: [partition] }]);
                }
              resolve();
            });
            c.on(c.events.CRASH, (e) => {
              if (!e.payload.restart) reject(e.payload.error);
            });
          });
          await c.run({
            autoCommit: false,
            eachBatch: async ({ batch }) => {
              for (const m of batch.messages) {
                await onRecord(toInRecord(batch.topic, batch.partition, m));
                positions.set(batch.partition, String(Number(m.offset) + 1));
              }
            },
          });
          await joined;
        },
        kafka,
        { operation: 'READ', resource: 'group', names: [groupId] },
      );
      await admin.connect(); // so the first follow costs one request, not a connect too
    },
    follow(partition) {
      let ready = followed.get(partition);
      if (ready === undefined) {
        ready = (async () => {
          const end = String((await admin.watermarks(topic)).get(partition)?.high ?? 0);
          positions.set(partition, end);
          c.seek({ topic, partition, offset: end });
          c.resume([{ topic, partitions: [partition] }]);
        })();
        followed.set(partition, ready);
        // A failed follow is tried again by the next request, not remembered as done.
        ready.catch(() => followed.delete(partition));
      }
      return ready;
    },
    stop: async () => {
      await c.stop();
      await c.disconnect();
    },
  };
}
