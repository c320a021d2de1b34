// One error base with a closed list of codes; `context` is plain data pino can serialise.
// `retriable` marks infrastructure failures worth another attempt (a broker or registry that
// may come back); retry loops retry nothing else.

export const ERROR_CODES = {
  configInvalid: 'CONFIG_INVALID',
  configUnreadable: 'CONFIG_UNREADABLE',
  eventInvalid: 'EVENT_INVALID',
  schemaRegistry: 'SCHEMA_REGISTRY',
  kafka: 'KAFKA',
  /** Kafka refused the credentials, or wants credentials and got none. */
  kafkaAuthentication: 'KAFKA_AUTHENTICATION',
  /** Kafka refused an operation for want of an ACL: context names the operation and resource. */
  kafkaAuthorization: 'KAFKA_AUTHORIZATION',
  /** The TLS handshake with Kafka failed, or TLS was expected and not spoken (or the reverse). */
  kafkaTls: 'KAFKA_TLS',
  usage: 'USAGE',
  /** Work given up because the process is stopping. */
  aborted: 'ABORTED',
  /** A broken invariant of loopguard itself: a bug, never bad input. */
  internal: 'INTERNAL',
} as const;
export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

export class LoopguardError extends Error {
  override readonly name = 'LoopguardError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly context: Readonly<Record<string, unknown>> = {},
    readonly retriable = false,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, message: this.message, context: this.context, retriable: this.retriable };
  }
}

/** For the default branch of an exhaustive switch, and other branches the types rule out. */
export function unreachable(what: string, value: unknown): never {
  throw new LoopguardError(ERROR_CODES.internal, `unreachable: ${what} ${JSON.stringify(value)}`, { value: String(value) });
}

/** A retry loop's verdict on an error: only a LoopguardError marked retriable earns another attempt. */
export const isRetriable = (e: unknown): boolean => e instanceof LoopguardError && e.retriable;

/** What a secured Kafka refused: credentials, TLS, an ACL. Retrying with the same settings gets the same answer. */
export const isKafkaRefusal = (e: unknown): e is LoopguardError =>
  e instanceof LoopguardError && (e.code === ERROR_CODES.kafkaAuthentication || e.code === ERROR_CODES.kafkaAuthorization || e.code === ERROR_CODES.kafkaTls);
