// The kafkajs client's log lines, routed into pino. kafkajs logs at ERROR every failed response,
// including the ones it retries itself and that resolve on their own while a broker starts,
// elects leaders or loads a group coordinator ("This server is not the leader for that
// topic-partition", "The coordinator is loading…"). Those go to debug, with one info line the
// first time saying what they mean; error stays for what needs a person (a retry that gave up
// reaches loopguard as a failure and is logged where it is handled).
import { createRequire } from 'node:module';
import type { LogEntry } from 'kafkajs';
import type { Logger } from '../../logger.js';
import { kafkajs } from './patches.js';

const { logLevel } = kafkajs;
const require = createRequire(import.meta.url);

/** Retriable protocol errors of a cluster settling: leaders, coordinators, fresh topics. */
const SETTLING = new Set([
  'UNKNOWN_TOPIC_OR_PARTITION',
  'LEADER_NOT_AVAILABLE',
  'NOT_LEADER_FOR_PARTITION',
  'REPLICA_NOT_AVAILABLE',
  'GROUP_LOAD_IN_PROGRESS',
  'GROUP_COORDINATOR_NOT_AVAILABLE',
  'NOT_COORDINATOR_FOR_GROUP',
  'NOT_CONTROLLER',
  'CONCURRENT_TRANSACTIONS',
  'FETCH_SESSION_ID_NOT_FOUND',
  'INVALID_FETCH_SESSION_EPOCH',
  'FENCED_LEADER_EPOCH',
  'UNKNOWN_LEADER_EPOCH',
  'OFFSET_NOT_AVAILABLE',
  'UNSTABLE_OFFSET_COMMIT',
]);

/** Their messages, as kafkajs words them (its own table; none when it cannot be read). */
function settlingMessages(): readonly string[] {
  try {
    const { errorCodes } = require('kafkajs/src/protocol/error') as { errorCodes: ReadonlyArray<{ type: string; retriable: boolean; message: string }> };
    return errorCodes.filter((e) => e.retriable && SETTLING.has(e.type)).map((e) => e.message);
  } catch {
    return [];
  }
}

const MESSAGES = settlingMessages();

/** Whether a kafkajs log line reports a retried error of a settling cluster. */
export function isSettling(message: string, error: unknown): boolean {
  const text = typeof error === 'string' ? `${message} ${error}` : message;
  return MESSAGES.some((m) => text.includes(m));
}

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = { [logLevel.ERROR]: 'error', [logLevel.WARN]: 'warn', [logLevel.INFO]: 'info', [logLevel.DEBUG]: 'debug' };

/** True the first time it is called. */
export type FirstTime = () => boolean;
export const firstTime = (): FirstTime => {
  let done = false;
  return () => !done && (done = true);
};
// Once per process: every client in it sees the same broker settle.
const FIRST_IN_PROCESS = firstTime();

/** kafkajs's `logCreator` for `log`; the settling is explained when `explain()` says so. */
export function kafkaLogger(log: Logger, explain: FirstTime = FIRST_IN_PROCESS) {
  return () =>
    ({ level, log: entry }: LogEntry) => {
      const { message, ...rest } = entry;
      let lvl = LEVELS[level] ?? 'info';
      if ((lvl === 'error' || lvl === 'warn') && isSettling(message, rest.error)) {
        if (explain()) {
          log.info({ error: rest.error ?? message }, 'the Kafka broker is still starting or moving a partition leader or group coordinator; the client retries until it settles');
        }
        lvl = 'debug';
      } else if (lvl === 'error' && /coordinator|leader|rebalanc|concurrent/i.test(message)) {
        // Other coordinator and rebalance conditions kafkajs logs as ERROR while it rejoins.
        lvl = 'warn';
      }
      log[lvl]({ kafka: rest }, message);
    };
}
