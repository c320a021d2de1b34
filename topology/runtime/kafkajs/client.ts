// The kafkajs client itself: one `Kafka` per session, its logs routed into pino (logs.ts), and its
// errors turned into LoopguardErrors that keep kafkajs's own verdict on retrying.
import type { KafkaConfig, SASLOptions } from 'kafkajs';
import type { LoopguardSettings } from '../../config.js';
import { ERROR_CODES, LoopguardError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { kafkaLogger } from './logs.js';
import { kafkajs } from './patches.js';

const { Kafka, logLevel } = kafkajs;
export type KafkaClient = InstanceType<typeof Kafka>;

function saslOf(s: LoopguardSettings['kafka']['sasl']): SASLOptions | undefined {
  if (s === undefined) return undefined;
  return { mechanism: s.mechanism, username: s.username, password: s.password } as SASLOptions;
}

export function createClient(settings: Pick<LoopguardSettings, 'kafka'>, log: Logger, clientSuffix: string): KafkaClient {
  const config: KafkaConfig = {
    clientId: settings.kafka.clientId + clientSuffix,
    brokers: settings.kafka.brokers,
    ssl: settings.kafka.ssl,
    sasl: saslOf(settings.kafka.sasl),
    logLevel: logLevel.WARN,
    logCreator: kafkaLogger(log.child({ component: 'kafkajs' })),
    retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 5_000 },
  };
  return new Kafka(config);
}

/** The innermost cause: kafkajs wraps the error that decided the outcome in retry errors. */
const rootOf = (e: unknown): unknown => (e instanceof Error && e.cause !== undefined ? rootOf(e.cause) : e);

/** A kafkajs failure as a LoopguardError, retriable when kafkajs says so. */
export function kafkaError(what: string, e: unknown): LoopguardError {
  if (e instanceof LoopguardError) return e;
  const root = rootOf(e) as { message?: string; retriable?: boolean };
  const retriable = (e as { retriable?: boolean }).retriable === true || root.retriable === true || (e as Error).name === 'KafkaJSNumberOfRetriesExceeded';
  const detail = root.message ?? (e as Error).message ?? String(e);
  return new LoopguardError(ERROR_CODES.kafka, `${what}: ${detail}`, {}, retriable, { cause: e });
}

/** Runs a kafkajs call, rethrowing its failure as a LoopguardError named after `what`. */
export async function kafkaCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw kafkaError(what, e);
  }
}
