// The kafkajs client itself: one `Kafka` per session, its logs routed into pino (logs.ts), and its
// errors turned into LoopguardErrors that keep kafkajs's own verdict on retrying, or say what a
// secured broker refused (refusals.ts).
import { readFileSync } from 'node:fs';
import type { KafkaConfig, SASLOptions } from 'kafkajs';
import { kafkaTls, type LoopguardSettings } from '../../config.js';
import { ERROR_CODES, LoopguardError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { AUTHORIZATION_CODES, authenticationFailed, notAuthorised, tlsFailed, tlsProblemOfCode, type Access } from '../refusals.js';
import { kafkaLogger } from './logs.js';
import { kafkajs } from './patches.js';

const { Kafka, logLevel } = kafkajs;
export type KafkaClient = InstanceType<typeof Kafka>;
type KafkaSettings = LoopguardSettings['kafka'];

function saslOf(s: KafkaSettings['sasl']): SASLOptions | undefined {
  if (s === undefined) return undefined;
  return { mechanism: s.mechanism, username: s.username, password: s.password } as SASLOptions;
}

/** kafkajs's `ssl`: Node's TLS options, with the PEM files' contents. */
function sslOf(ssl: KafkaSettings['ssl']): KafkaConfig['ssl'] {
  const t = kafkaTls(ssl);
  if (t === undefined) return false;
  if (t.caFile === undefined && t.certFile === undefined) return true;
  return {
    ...(t.caFile !== undefined ? { ca: [readFileSync(t.caFile, 'utf8')] } : {}),
    ...(t.certFile !== undefined && t.keyFile !== undefined ? { cert: readFileSync(t.certFile, 'utf8'), key: readFileSync(t.keyFile, 'utf8') } : {}),
    ...(t.keyPassword !== undefined ? { passphrase: t.keyPassword } : {}),
  };
}

/** The settings each client was made with: what a refusal's message names (brokers, user). */
const settingsOf = new WeakMap<KafkaClient, KafkaSettings>();

/** `retries`: how often a failed request or connection is tried again (0: the preflight's client). */
export function createClient(settings: Pick<LoopguardSettings, 'kafka'>, log: Logger, clientSuffix: string, retries = 8): KafkaClient {
  const config: KafkaConfig = {
    clientId: settings.kafka.clientId + clientSuffix,
    brokers: settings.kafka.brokers,
    ssl: sslOf(settings.kafka.ssl),
    sasl: saslOf(settings.kafka.sasl),
    logLevel: logLevel.WARN,
    logCreator: kafkaLogger(log.child({ component: 'kafkajs' })),
    retry: { retries, initialRetryTime: 200, maxRetryTime: 5_000 },
  };
  const client = new Kafka(config);
  settingsOf.set(client, settings.kafka);
  return client;
}

/** The innermost cause: kafkajs wraps the error that decided the outcome in retry errors. */
export const rootOf = (e: unknown): unknown => (e instanceof Error && e.cause !== undefined && e.cause !== e ? rootOf(e.cause) : e);

const AUTHORIZATION_TYPES: Readonly<Record<string, number>> = {
  TOPIC_AUTHORIZATION_FAILED: 29,
  GROUP_AUTHORIZATION_FAILED: 30,
  CLUSTER_AUTHORIZATION_FAILED: 31,
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: 53,
};
const AUTHENTICATION_TYPES = new Set(['SASL_AUTHENTICATION_FAILED', 'UNSUPPORTED_SASL_MECHANISM', 'ILLEGAL_SASL_STATE']);

/** What a secured broker refused, when `e` is a refusal; undefined for anything else. */
export function refusalOf(what: string, e: unknown, client: KafkaClient | undefined, access?: Access): LoopguardError | undefined {
  const root = rootOf(e) as { name?: string; type?: string; code?: unknown; message?: string };
  const k = client === undefined ? undefined : settingsOf.get(client);
  const detail = root.message ?? String(root);
  if (root.name === 'KafkaJSSASLAuthenticationError' || AUTHENTICATION_TYPES.has(root.type ?? '')) {
    // kafkajs prefixes the broker's reason with its own: "SASL SCRAM SHA512 authentication failed: …"
    const reason = detail.replace(/^SASL [A-Z0-9 ]+ authentication failed: /, '');
    return k ? authenticationFailed(k, reason, e) : new LoopguardError(ERROR_CODES.kafkaAuthentication, `${what}: ${reason}`, {}, false, { cause: e });
  }
  const tls = tlsProblemOfCode(root.code);
  if (tls !== undefined)
    return k ? tlsFailed(k, tls, detail.replace(/^Connection error: /, ''), e) : new LoopguardError(ERROR_CODES.kafkaTls, `${what}: ${detail}`, {}, false, { cause: e });
  const code = AUTHORIZATION_TYPES[root.type ?? ''];
  if (code !== undefined) {
    if (k && access !== undefined && access.resource === AUTHORIZATION_CODES[code]) return notAuthorised(what, access, k, e);
    return new LoopguardError(ERROR_CODES.kafkaAuthorization, `${what}: not authorised: ${detail}`, { resource: AUTHORIZATION_CODES[code] }, false, { cause: e });
  }
  // kafkajs swallows the broker's GROUP_AUTHORIZATION_FAILED to FindCoordinator and reports
  // only that it found no coordinator: a group the client may not read is all that answers so.
  if (root.name === 'KafkaJSGroupCoordinatorNotFound' && k && access?.resource === 'group') {
    const refused = notAuthorised(what, access, k, e);
    return new LoopguardError(refused.code, `${refused.message} (the broker named no coordinator for it, as it does for a group this user may not use)`, refused.context, false, {
      cause: e,
    });
  }
  return undefined;
}

/** A kafkajs failure as a LoopguardError: a refusal says what was refused; anything else is retriable when kafkajs says so. */
export function kafkaError(what: string, e: unknown, client?: KafkaClient, access?: Access): LoopguardError {
  if (e instanceof LoopguardError) return e;
  const refused = refusalOf(what, e, client, access);
  if (refused !== undefined) return refused;
  const root = rootOf(e) as { message?: string; retriable?: boolean };
  const retriable = (e as { retriable?: boolean }).retriable === true || root.retriable === true || (e as Error).name === 'KafkaJSNumberOfRetriesExceeded';
  const detail = root.message ?? (e as Error).message ?? String(e);
  return new LoopguardError(ERROR_CODES.kafka, `${what}: ${detail}`, {}, retriable, { cause: e });
}

/** Runs a kafkajs call, rethrowing its failure as a LoopguardError named after `what` (`access`: what it needs allowed). */
export async function kafkaCall<T>(what: string, call: () => Promise<T>, client?: KafkaClient, access?: Access): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw kafkaError(what, e, client, access);
  }
}
