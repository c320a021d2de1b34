// librdkafka's configuration from loopguard's settings, its log and error events routed into
// pino, and its errors turned into LoopguardErrors that keep librdkafka's verdict on retrying.
import type { KafkaConsumer, TopicPartition, TopicPartitionOffset } from '@confluentinc/kafka-javascript';
import { kafkaTls, type LoopguardSettings } from '../../config.js';
import { ERROR_CODES, LoopguardError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { AUTHORIZATION_CODES, notAuthorised, type Access } from '../refusals.js';

/** librdkafka properties (strings, numbers, booleans, callbacks). */
export type RdConfig = Record<string, string | number | boolean | ((...args: never[]) => void)>;

type KafkaSettings = LoopguardSettings['kafka'];

/** The settings each session's base config was made from: what a refusal's message names. */
const settingsOf = new WeakMap<RdConfig, KafkaSettings>();

/** librdkafka's TLS properties: the PEM files by path, as librdkafka reads them itself. */
function tlsConfig(ssl: KafkaSettings['ssl']): RdConfig {
  const t = kafkaTls(ssl);
  if (t === undefined) return {};
  return {
    ...(t.caFile !== undefined ? { 'ssl.ca.location': t.caFile } : {}),
    ...(t.certFile !== undefined ? { 'ssl.certificate.location': t.certFile } : {}),
    ...(t.keyFile !== undefined ? { 'ssl.key.location': t.keyFile } : {}),
    ...(t.keyPassword !== undefined ? { 'ssl.key.password': t.keyPassword } : {}),
  };
}

/** The properties every client of a session shares: where the brokers are and how to reach them. */
export function baseConfig(settings: Pick<LoopguardSettings, 'kafka'>, clientSuffix: string): RdConfig {
  const k = settings.kafka;
  const sasl = k.sasl;
  const protocol = `${sasl ? 'sasl_' : ''}${k.ssl !== false ? 'ssl' : 'plaintext'}`;
  const base: RdConfig = {
    'bootstrap.servers': k.brokers.join(','),
    'client.id': k.clientId + clientSuffix,
    'security.protocol': protocol,
    ...tlsConfig(k.ssl),
    ...(sasl ? { 'sasl.mechanisms': sasl.mechanism.toUpperCase(), 'sasl.username': sasl.username, 'sasl.password': sasl.password } : {}),
    // A broker that is away is retried by librdkafka itself; its first reconnects come fast.
    'reconnect.backoff.ms': 50,
    'reconnect.backoff.max.ms': 2_000,
    'log.connection.close': false,
  };
  settingsOf.set(base, k);
  return base;
}

export const kafkaSettingsOf = (base: RdConfig): KafkaSettings | undefined => settingsOf.get(base);

interface RdError {
  message?: string;
  code?: number;
  isRetriable?: boolean;
  isFatal?: boolean;
  isTxnRequiresAbort?: boolean;
}

/**
 * A librdkafka failure as a LoopguardError: a missing ACL says which (`access`: what the call
 * needs allowed, `base`: the session's config); anything else is retriable when librdkafka says
 * so (or a timeout/transport error).
 */
export function rdError(what: string, e: unknown, base?: RdConfig, access?: Access): LoopguardError {
  if (e instanceof LoopguardError) return e;
  const err = (e ?? {}) as RdError;
  const resource = AUTHORIZATION_CODES[err.code ?? 0];
  if (resource !== undefined) {
    const k = base === undefined ? undefined : settingsOf.get(base);
    if (k !== undefined && access !== undefined && access.resource === resource) return notAuthorised(what, access, k, e);
    return new LoopguardError(ERROR_CODES.kafkaAuthorization, `${what}: not authorised: ${err.message ?? String(e)}`, { resource, code: err.code }, false, { cause: e });
  }
  // -185 timed out, -195 transport, -187 all brokers down: the broker may come back.
  const retriable = err.isRetriable === true || [-185, -195, -187].includes(err.code ?? 0);
  return new LoopguardError(ERROR_CODES.kafka, `${what}: ${err.message ?? String(e)}`, { code: err.code }, retriable, { cause: e });
}

/** A node-style callback: the client's typings give each its own result type. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Callback = (err: any, value?: any) => void;

/** A node-style callback call as a promise, its failure a LoopguardError named after `what` (see rdError for `base` and `access`). */
export function call<T = void>(what: string, run: (cb: Callback) => void, base?: RdConfig, access?: Access): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    try {
      run((err, value) => (err ? reject(rdError(what, err, base, access)) : resolve(value as T)));
    } catch (e) {
      reject(rdError(what, e, base, access));
    }
  });
}

const closing = new WeakMap<object, Promise<void>>();

/**
 * Disconnects `client` once, however many callers ask, all of them waiting for the same end.
 * The binding ignores a disconnect asked while another is in flight and never calls its
 * callback (lib/client.js, `disconnect`): a second caller, such as a session closing a
 * transactional producer that a revocation is already closing, would wait forever.
 */
export function disconnectOnce(client: object, what: string, run: (cb: Callback) => void): Promise<void> {
  let done = closing.get(client);
  if (done === undefined) {
    done = call(what, run);
    closing.set(client, done);
  }
  return done;
}

/** Routes a client's error events into the log; fatal ones (librdkafka will not recover) go to `onFatal`. */
export function watchErrors(client: { on(event: 'event.error', l: (e: RdError) => void): unknown }, log: Logger, onFatal?: (e: Error) => void): void {
  client.on('event.error', (e) => {
    if (e.isFatal === true) {
      log.error({ err: e.message, code: e.code }, 'librdkafka fatal error');
      onFatal?.(rdError('librdkafka fatal error', e));
    } else log.warn({ err: e.message, code: e.code }, 'librdkafka error (it retries by itself)');
  });
}

/** The consumer with the methods its typings leave out (they are in its JavaScript). */
export type Consumer = KafkaConsumer & {
  incrementalAssign(tps: Array<TopicPartition | TopicPartitionOffset>): void;
  incrementalUnassign(tps: TopicPartition[]): void;
  commitCb(offsets: TopicPartitionOffset[], cb: (err: unknown) => void): void;
  setDefaultIsTimeoutOnlyForFirstMessage(v: boolean): void;
};
