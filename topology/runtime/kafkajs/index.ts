// The kafkajs adapter: the only folder that imports kafkajs. connectKafka gives a KafkaSession
// (port.ts) whose clients share one kafkajs `Kafka` and are all closed by `close`.
import type { LoopguardSettings } from '../../config.js';
import type { Logger } from '../../logger.js';
import type { KafkaSession } from '../port.js';
import { KafkajsAdmin } from './admin.js';
import { createClient } from './client.js';
import { follower } from './follower.js';
import { groupConsumer } from './groupConsumer.js';
import { kafkajsPatched, PATCHED_VERSION } from './patches.js';
import { preflight } from './preflight.js';
import { openSender } from './producer.js';
import { readToEnd } from './restore.js';
import { afterCheck } from '../checked.js';

let warnedUnpatched = false;

/**
 * Once per process, when kafkajs runs without patches.ts's replacements (another version than
 * PATCHED_VERSION, or loaded before loopguard): produce is slower, and its read-committed reads
 * may include a record of an aborted transaction (see filterAbortedMessages).
 */
export function warnIfUnpatched(log: Logger, patched = kafkajsPatched): void {
  if (patched || warnedUnpatched) return;
  warnedUnpatched = true;
  log.warn(
    { expected: PATCHED_VERSION },
    `kafkajs runs without loopguard's patches for kafkajs ${PATCHED_VERSION} (another version, or loaded before loopguard): produce is slower, and a read-committed read may include a record of an aborted transaction`,
  );
}

export function connectKafka(settings: Pick<LoopguardSettings, 'kafka'>, log: Logger, clientSuffix = ''): KafkaSession {
  warnIfUnpatched(log);
  const kafka = createClient(settings, log, clientSuffix);
  const admin = new KafkajsAdmin(kafka, settings.kafka.brokers);
  const opened: Array<{ disconnect(): Promise<void> }> = [{ disconnect: () => admin.close() }];
  const track = (c: { disconnect(): Promise<void> }) => {
    opened.push(c);
  };
  return afterCheck(() => preflight(settings, log, clientSuffix), {
    partitionCounts: (topics) => admin.partitionCounts(topics),
    createTopics: (specs) => admin.createTopics(specs),
    deleteTopics: (topics) => admin.deleteTopics(topics),
    groupMembers: (groupId) => admin.groupMembers(groupId),
    committedOffsets: (groupId, topic) => admin.committedOffsets(groupId, topic),
    watermarks: (topic) => admin.watermarks(topic),
    offsetsForTime: (topic, ts) => admin.offsetsForTime(topic, ts),
    setCommittedOffsets: (groupId, topic, offsets) => admin.setCommittedOffsets(groupId, topic, offsets),
    async producer() {
      const sender = await openSender(kafka);
      track(sender.producer);
      return sender;
    },
    groupConsumer: (groupId, opts) => groupConsumer(kafka, groupId, opts, log, track),
    follower: (topic) => follower(kafka, admin, topic, track),
    readToEnd: (topic, partitions, onRecord, signal) => readToEnd(kafka, admin, topic, partitions, onRecord, signal),
    // Newest first: consumers and producers before the admin they may still be using.
    close: async () => {
      for (const o of opened.reverse()) await o.disconnect().catch(() => {});
    },
  });
}
