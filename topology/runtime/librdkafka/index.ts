// The librdkafka adapter: the only folder that imports @confluentinc/kafka-javascript (its
// native API). connectRdkafka gives a KafkaSession (port.ts) whose clients are all closed by
// `close`.
import type { LoopguardSettings } from '../../config.js';
import type { Logger } from '../../logger.js';
import { afterCheck } from '../checked.js';
import type { KafkaSession } from '../port.js';
import { RdAdmin } from './admin.js';
import { baseConfig } from './client.js';
import { follower } from './follower.js';
import { groupConsumer } from './groupConsumer.js';
import type { RdKafka } from './native.js';
import { preflight } from './preflight.js';
import { openSender } from './producer.js';
import { readToEnd } from './restore.js';

export { rdkafka, loadError } from './native.js';

export function connectRdkafka(rd: RdKafka, settings: Pick<LoopguardSettings, 'kafka'>, log: Logger, clientSuffix = ''): KafkaSession {
  const base = baseConfig(settings, clientSuffix);
  const l = log.child({ component: 'librdkafka' });
  const admin = new RdAdmin(rd, base);
  const opened: Array<{ disconnect(): Promise<void> }> = [{ disconnect: () => admin.close() }];
  const track = (c: { disconnect(): Promise<void> }) => {
    opened.push(c);
  };
  return afterCheck(() => preflight(rd, base, settings), {
    partitionCounts: (topics) => admin.partitionCounts(topics),
    createTopics: (specs) => admin.createTopics(specs),
    deleteTopics: (topics) => admin.deleteTopics(topics),
    groupMembers: (groupId) => admin.groupMembers(groupId),
    committedOffsets: (groupId, topic) => admin.committedOffsets(groupId, topic),
    watermarks: (topic) => admin.watermarks(topic),
    offsetsForTime: (topic, ts) => admin.offsetsForTime(topic, ts),
    setCommittedOffsets: (groupId, topic, offsets) => admin.setCommittedOffsets(groupId, topic, offsets),
    async producer() {
      const sender = await openSender(rd, base, l);
      track({ disconnect: () => sender.close() });
      return sender;
    },
    groupConsumer: (groupId, opts) => groupConsumer(rd, base, groupId, opts, l, track),
    follower: (topic) => follower(rd, base, admin, topic, l, track),
    readToEnd: (topic, partitions, onRecord, signal) => readToEnd(rd, base, admin, topic, partitions, onRecord, l, signal),
    // Newest first: consumers and producers before the admin they may still be using.
    close: async () => {
      for (const o of opened.reverse()) await o.disconnect().catch(() => {});
    },
  });
}
