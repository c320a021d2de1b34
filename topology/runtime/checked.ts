// A session whose clients connect only after one check of the broker has passed (each adapter's
// preflight: a secured broker's refusal found in milliseconds, not after the client's own
// retries). The check runs once, at the first call that reaches the broker; a refusal fails that
// call and every later one the same way (the same settings get the same answer).
import type { KafkaSession, PartitionFollower, RecordSource } from './port.js';

export function afterCheck(check: () => Promise<void>, s: KafkaSession): KafkaSession {
  let checked: Promise<void> | undefined;
  const ready = () => (checked ??= check());
  const then =
    <A extends unknown[], R>(f: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      await ready();
      return f(...a);
    };
  return {
    partitionCounts: then(s.partitionCounts),
    createTopics: then(s.createTopics),
    deleteTopics: then(s.deleteTopics),
    groupMembers: then(s.groupMembers),
    committedOffsets: then(s.committedOffsets),
    watermarks: then(s.watermarks),
    offsetsForTime: then(s.offsetsForTime),
    setCommittedOffsets: then(s.setCommittedOffsets),
    producer: then(s.producer),
    groupConsumer(groupId, opts): RecordSource {
      const source = s.groupConsumer(groupId, opts);
      return { ...source, run: then(source.run), sink: then(source.sink), transactionalSink: then(source.transactionalSink) };
    },
    follower(topic): PartitionFollower {
      const f = s.follower(topic);
      return { ...f, start: then(f.start) };
    },
    readToEnd: then(s.readToEnd),
    close: s.close,
  };
}
