// One error base with a closed list of codes; `context` is plain data pino can serialise.

export const ERROR_CODES = {
  configInvalid: 'CONFIG_INVALID',
  configUnreadable: 'CONFIG_UNREADABLE',
  eventInvalid: 'EVENT_INVALID',
  decodeFailed: 'DECODE_FAILED',
  schemaRegistry: 'SCHEMA_REGISTRY',
  kafka: 'KAFKA',
  usage: 'USAGE',
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
