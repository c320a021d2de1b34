// One connection of a client to Kafka: a session, its producer, and its follower of the
// decision topic. A link that is lost is closed and replaced by a new one (connection.ts), so
// no state a client library keeps across a broker outage (a crashed consumer, a producer that
// retries forever, a follower whose partitions were paused by a rejoin) outlives it.
import type { LoopguardSettings } from '../topology/config.js';
import { ERROR_CODES, LoopguardError } from '../topology/errors.js';
import type { Logger } from '../topology/logger.js';
import { connectKafka } from '../topology/runtime/connect.js';
import type { InRecord, OutRecord } from '../topology/runtime/port.js';

export interface Link {
  /** Partition count per topic the client reads or writes. */
  readonly partitions: ReadonlyMap<string, number>;
  send(records: readonly OutRecord[]): Promise<void>;
  /** Reads decisions of `partition` from its end now on (see PartitionFollower). */
  follow(partition: number): Promise<void>;
  /** One metadata request: whether the brokers answer. */
  probe(): Promise<void>;
  close(): Promise<void>;
}

export async function openLink(
  settings: Pick<LoopguardSettings, 'kafka'>,
  log: Logger,
  topics: readonly string[],
  verdicts: string,
  onRecord: (r: InRecord) => Promise<void>,
  /** Told each step as it begins: what a connect that takes too long was waiting for. */
  step: (what: string) => void = () => undefined,
): Promise<Link> {
  const kafka = connectKafka(settings, log);
  try {
    step("reading the topics' metadata");
    const partitions = await kafka.partitionCounts(topics);
    const missing = topics.filter((t) => !partitions.has(t));
    // Retriable: `loopguard start` creates them moments after its broker is up.
    if (missing.length > 0)
      throw new LoopguardError(ERROR_CODES.kafka, `topic ${missing.join(', ')} does not exist (create it with \`loopguard topics create\`)`, { topics: missing }, true);
    step('starting the producer');
    const sender = await kafka.producer();
    step(`joining a reader group of ${verdicts}`);
    const follower = kafka.follower(verdicts);
    await follower.start(onRecord);
    return {
      partitions,
      send: (records) => sender.send(records),
      follow: (p) => follower.follow(p),
      probe: async () => {
        await kafka.partitionCounts([verdicts]);
      },
      close: () => kafka.close(),
    };
  } catch (e) {
    void kafka.close().catch(() => undefined);
    throw e;
  }
}
