// The console's only Kafka access: decisions from the decision topic — every instance's —
// starting with those appended in the last `lookbackMs`, then as they arrive (read-committed).
// A consumer group of its own, positioned by committing the offsets for that time before it
// joins, so a long-retained topic is not read from its beginning.
import { setTimeout as delay } from 'node:timers/promises';
import { decisionCodec } from '../../schemas/codecs.js';
import type { LoopguardConfig } from '../../topology/config.js';
import { ERROR_CODES, LoopguardError } from '../../topology/errors.js';
import type { Logger } from '../../topology/logger.js';
import { readerGroupId } from '../../topology/runtime/groups.js';
import { connect } from '../connect.js';
import type { ConsoleDecision } from './view.js';

export interface DecisionSource {
  stop(): Promise<void>;
}

const ATTEMPTS = 8;
const WARN_FROM = 6;

/** Retries what the client marks retriable (a topic just created may have no leader yet). */
async function retrying<T>(what: string, log: Logger, f: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await f();
    } catch (e) {
      if ((e as { retriable?: unknown }).retriable !== true) throw e;
      if (attempt >= ATTEMPTS) throw new LoopguardError(ERROR_CODES.kafka, `${what} failed ${attempt} times: ${(e as Error).message}`, {}, true, { cause: e });
      const wait = Math.min(5_000, 200 * 2 ** attempt) * (0.5 + Math.random() / 2);
      // A topic just created has no leader for a moment: expected, so warn only when it lasts.
      log[attempt < WARN_FROM ? 'debug' : 'warn']({ attempt, waitMs: Math.round(wait), err: (e as Error).message }, `${what} failed; retrying`);
      await delay(wait);
    }
  }
}

export async function followDecisions(config: LoopguardConfig, log: Logger, lookbackMs: number, onDecision: (d: ConsoleDecision) => void): Promise<DecisionSource> {
  const topic = config.topics.verdicts;
  const { kafka, catalog } = connect(config, log, '-console');
  try {
    if (!(await retrying('listing topics', log, () => kafka.partitionCounts([topic]))).has(topic)) {
      throw new LoopguardError(ERROR_CODES.kafka, `topic ${topic} does not exist (create it with \`loopguard topics create\`, or start the guard with \`loopguard start\`)`);
    }
    const groupId = readerGroupId(topic, 'console');
    // The append time of records, which is what offsets are looked up by: the wall clock is
    // the right one here (which records to load), unlike for anything shown.
    const from = await retrying(`looking up offsets of ${topic}`, log, () => kafka.offsetsForTime(topic, Date.now() - lookbackMs));
    await retrying(`positioning the console on ${topic}`, log, () => kafka.setCommittedOffsets(groupId, topic, from));
    const consumer = kafka.groupConsumer(groupId, { topics: [topic], fromBeginning: false, readCommitted: true });
    await consumer.run({
      onBatch: async (b) => {
        for (const r of b.records) {
          try {
            onDecision((await catalog.decode(r.value, decisionCodec)) as ConsoleDecision);
          } catch (e) {
            log.warn({ topic, partition: r.partition, offset: r.offset, err: (e as Error).message }, 'skipped a decision the console cannot decode');
          }
        }
        return b.records.at(-1)?.offset;
      },
    });
    return {
      stop: async () => {
        await consumer.stop().catch(() => {});
        await kafka.close();
      },
    };
  } catch (e) {
    await kafka.close();
    throw e;
  }
}
