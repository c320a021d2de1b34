// A PartitionFollower: a consumer in no group that is assigned each partition when asked to
// follow it, from the end the partition had then (read-committed).
import type { Logger } from '../../logger.js';
import { readerGroupId } from '../groups.js';
import type { PartitionFollower } from '../port.js';
import { topicAccess } from '../refusals.js';
import type { RdAdmin } from './admin.js';
import { call, disconnectOnce, rdError, type Consumer, type RdConfig } from './client.js';
import { consumeLoop, type ConsumeLoop } from './consumeLoop.js';
import type { RdKafka } from './native.js';
import { toInRecord } from './records.js';

export function follower(rd: RdKafka, base: RdConfig, admin: RdAdmin, topic: string, log: Logger, onOpen: (c: { disconnect(): Promise<void> }) => void): PartitionFollower {
  const c = new rd.KafkaConsumer({
    ...base,
    'group.id': readerGroupId(topic, 'reader'),
    'enable.auto.commit': false,
    'isolation.level': 'read_committed',
    'fetch.wait.max.ms': 100,
  } as never) as Consumer;
  const followed = new Map<number, Promise<void>>();
  let loop: ConsumeLoop | undefined;
  const stop = async () => {
    await loop?.stop();
    loop = undefined;
    if (c.isConnected()) await disconnectOnce(c, 'disconnect', (cb) => c.disconnect(cb)).catch(() => undefined);
  };
  onOpen({ disconnect: stop });
  return {
    async start(onRecord) {
      await call(`cannot follow ${topic}`, (cb) => c.connect({ timeout: 30_000 }, cb), base);
      loop = consumeLoop(
        c,
        1_000,
        async (messages) => {
          for (const m of messages) await onRecord(toInRecord(m));
        },
        log,
        undefined,
        // No decision reaches this client any more: its requests get the failure policy's answer.
        (e) => log.error({ err: rdError(`cannot follow ${topic}`, e, base, topicAccess('READ', topic)).message }, 'no longer following decisions'),
      );
    },
    follow(partition) {
      let ready = followed.get(partition);
      if (ready === undefined) {
        ready = (async () => {
          const end = (await admin.watermarks(topic)).get(partition);
          c.incrementalAssign([{ topic, partition, offset: end?.high ?? 0 }]);
        })();
        followed.set(partition, ready);
        // A failed follow is tried again by the next request, not remembered as done.
        ready.catch(() => followed.delete(partition));
      }
      return ready;
    },
    stop,
  };
}
