// A secured broker's refusals — bad credentials, a certificate not trusted, TLS or SASL
// expected and not spoken, a missing ACL — as one clear LoopguardError each, saying what was
// refused and where to fix it. Both adapters sort their client's errors into these. A refusal
// is never retriable: the same request with the same settings gets the same answer.
import { connect } from 'node:tls';
import type { LoopguardSettings } from '../config.js';
import { ERROR_CODES, LoopguardError } from '../errors.js';

type Kafka = Pick<LoopguardSettings, 'kafka'>['kafka'];

export type AclOperation = 'READ' | 'WRITE' | 'DESCRIBE' | 'CREATE' | 'DELETE';
export type AclResource = 'topic' | 'group' | 'transactional id' | 'cluster';

/** What a call needs the broker to allow: `WRITE topic loopguard.verdicts`. */
export interface Access {
  readonly operation: AclOperation;
  readonly resource: AclResource;
  /** One name, or several when the client does not say which of them was refused. */
  readonly names: readonly string[];
}

export const topicAccess = (operation: AclOperation, ...names: string[]): Access => ({ operation, resource: 'topic', names });

/** Kafka's error codes for a missing ACL, with the resource each is about. */
export const AUTHORIZATION_CODES: Readonly<Record<number, AclResource>> = { 29: 'topic', 30: 'group', 31: 'cluster', 53: 'transactional id' };

const who = (k: Kafka) => (k.sasl ? ` (Kafka user ${k.sasl.username})` : '');
const where = (k: Kafka) => `cannot connect to Kafka at ${k.brokers.join(',')}`;

/** `<what>: not authorised to WRITE topic loopguard.verdicts (Kafka user runner)`. */
export function notAuthorised(what: string, access: Access, k: Kafka, cause?: unknown): LoopguardError {
  const names = access.names.length === 1 ? access.names[0] : `${access.names.slice(0, -1).join(', ')} or ${access.names.at(-1)}`;
  const target = access.resource === 'cluster' ? 'on the cluster' : `${access.resource} ${names}`;
  // READ and WRITE include DESCRIBE: a topic that may not be described may not be used at all.
  const neither = access.operation === 'DESCRIBE' && access.resource === 'topic' ? ', so neither to READ nor to WRITE it' : '';
  return new LoopguardError(
    ERROR_CODES.kafkaAuthorization,
    `${what}: not authorised to ${access.operation} ${target}${neither}${who(k)}`,
    { operation: access.operation, resource: access.resource, names: access.names },
    false,
    { cause },
  );
}

export function authenticationFailed(k: Kafka, detail: string, cause?: unknown): LoopguardError {
  const user = k.sasl ? `user ${k.sasl.username} (${k.sasl.mechanism.toUpperCase()})` : 'this client';
  return new LoopguardError(ERROR_CODES.kafkaAuthentication, `${where(k)}: authentication failed for ${user}: ${detail}`, {}, false, { cause });
}

/** The broker closed the connection right after the handshake it allows before authentication. */
export function saslRequired(k: Kafka, cause?: unknown): LoopguardError {
  return new LoopguardError(
    ERROR_CODES.kafkaAuthentication,
    `${where(k)}: authentication required: the broker closed the connection after the handshake, and no SASL credentials are set (loopguard.kafka.sasl, or KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD)`,
    {},
    false,
    { cause },
  );
}

export type TlsProblem = 'untrusted' | 'hostname' | 'expired' | 'notTls' | 'clientCertificate' | 'expectsTls' | 'other';

const TLS_ADVICE: Record<TlsProblem, string> = {
  untrusted: "the broker's certificate is not trusted; set loopguard.kafka.ssl.caFile (or KAFKA_SSL_CA_FILE) to the CA that signed it",
  hostname: "the broker's certificate does not name the address connected to",
  expired: "the broker's certificate has expired or is not valid yet",
  notTls: 'the broker does not speak TLS on this port (loopguard.kafka.ssl is on)',
  clientCertificate: 'the broker refused our client certificate (loopguard.kafka.ssl.certFile / keyFile)',
  expectsTls: 'the broker expects TLS on this port, and loopguard.kafka.ssl is off (set it, or KAFKA_SSL=true)',
  other: 'the TLS handshake failed',
};

export function tlsFailed(k: Kafka, problem: TlsProblem, detail: string | undefined, cause?: unknown): LoopguardError {
  return new LoopguardError(ERROR_CODES.kafkaTls, `${where(k)}: TLS: ${TLS_ADVICE[problem]}${detail ? ` (${detail})` : ''}`, { problem }, false, { cause });
}

/** Node's TLS error codes (kafkajs passes them on) by what they mean. */
const NODE_TLS_CODES: Readonly<Record<string, TlsProblem>> = {
  SELF_SIGNED_CERT_IN_CHAIN: 'untrusted',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'untrusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'untrusted',
  UNABLE_TO_GET_ISSUER_CERT: 'untrusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'untrusted',
  CERT_UNTRUSTED: 'untrusted',
  CERT_SIGNATURE_FAILURE: 'untrusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'hostname',
  CERT_HAS_EXPIRED: 'expired',
  CERT_NOT_YET_VALID: 'expired',
  ERR_SSL_WRONG_VERSION_NUMBER: 'notTls',
  ERR_SSL_PACKET_LENGTH_TOO_LONG: 'notTls',
  ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED: 'clientCertificate',
  ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE: 'clientCertificate',
  ERR_SSL_TLSV1_ALERT_UNKNOWN_CA: 'clientCertificate',
};

export const tlsProblemOfCode = (code: unknown): TlsProblem | undefined => (typeof code === 'string' ? NODE_TLS_CODES[code] : undefined);

/** OpenSSL's words for the same (librdkafka reports the handshake's failure as OpenSSL words it). */
export function tlsProblemOfText(text: string): TlsProblem {
  if (/hostname|ip address mismatch|subject alternative name/i.test(text)) return 'hostname';
  if (/certificate verify failed|unable to get (local )?issuer|self[- ]signed/i.test(text)) return /expired|not yet valid/i.test(text) ? 'expired' : 'untrusted';
  if (/wrong version number|packet length too long|unexpected eof|http request|record layer failure/i.test(text)) return 'notTls';
  if (/alert (certificate required|bad certificate|unknown ca)/i.test(text)) return 'clientCertificate';
  return 'other';
}

/**
 * Whether `broker` completes a TLS handshake (its certificate not checked: this only asks
 * whether the port speaks TLS). False when it does not answer within `timeoutMs`.
 */
export function speaksTls(broker: string, timeoutMs = 2_000): Promise<boolean> {
  const at = broker.lastIndexOf(':');
  return new Promise((resolve) => {
    const socket = connect({ host: broker.slice(0, at), port: Number(broker.slice(at + 1)), rejectUnauthorized: false, timeout: timeoutMs });
    const done = (v: boolean) => {
      socket.destroy();
      resolve(v);
    };
    socket.once('secureConnect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/**
 * A connection the broker closed without saying why: TLS expected, or (after the handshake a
 * SASL listener answers unauthenticated) SASL expected. Undefined when it is neither, as far as
 * can be told.
 */
export async function diagnoseClosed(k: Kafka, afterHandshake: boolean, cause?: unknown): Promise<LoopguardError | undefined> {
  if (k.ssl === false && !afterHandshake && (await speaksTls(k.brokers[0]!))) return tlsFailed(k, 'expectsTls', undefined, cause);
  if (k.sasl === undefined && afterHandshake) return saslRequired(k, cause);
  return undefined;
}
