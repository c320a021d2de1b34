// The hashes tool-loop detection compares (docs/behaviour.md §2.2). Public through hashing.ts:
// agent runners that send `argsHash` / `resultHash` instead of raw values compute them with
// these same functions.
import { canonicalJson, canonicalUtf8, MAX_DEPTH } from './canonical.js';
import { sha256, sha256Bytes } from './sha256.js';

export { canonicalJson } from './canonical.js';

/** Lowercase hex SHA-256 of the canonical JSON of `value`. */
export function hashValue(value: unknown): string {
  const bytes = canonicalUtf8(value);
  return bytes !== undefined ? sha256Bytes(bytes) : sha256(canonicalJson(value));
}

/** `<toolName>:` + hash of the args. */
export function hashArgs(toolName: string, args: unknown): string {
  return `${toolName}:${hashValue(args)}`;
}

export interface OutcomeInput {
  readonly toolName: string;
  /** The call's arguments (only `action` and `to` are read), if the runner has them. */
  readonly args?: unknown;
  /** The args' `action`, for events that carry `argsHash` instead of args. */
  readonly action?: string;
  readonly result?: unknown;
  readonly error?: unknown;
}

export interface OutcomeHash {
  readonly resultHash: string;
  readonly unknownToolName?: string;
}

type Obj = Record<string, unknown>;

export { isRecord as isPlainObject } from '../kernel/contract.js';
import { isRecord as isPlainObject } from '../kernel/contract.js';

/** The args' `action` (a string), from raw args or from the event's own `action` field. */
export function actionOf(args: unknown, action?: string): string | undefined {
  if (isPlainObject(args) && typeof args.action === 'string') return args.action;
  return action;
}

/** `resultHash` of a tool outcome, or undefined when the outcome carries nothing to compare. */
export function hashOutcome(o: OutcomeInput): OutcomeHash | undefined {
  if (o.error !== undefined && o.error !== null) return hashError(o.error);
  if (o.result === undefined) return undefined;
  if (!isPlainObject(o.result) || !isGatewayShaped(o.result)) return { resultHash: hashValue(o.result) };
  const hash = hashResultObject(o.toolName, o.args, actionOf(o.args, o.action), o.result);
  return hash === undefined ? undefined : { resultHash: hash };
}

// ---- rule 1: errors --------------------------------------------------------------------------

export function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (typeof error === 'number' || typeof error === 'boolean') return String(error);
  if (isPlainObject(error) || error instanceof Error) {
    const e = error as Obj;
    if (typeof e.message === 'string') return e.message;
    if (typeof e.name === 'string') return e.name;
  }
  return canonicalJson(error);
}

const NAME = `['"\`]?([a-z0-9_.-]+)['"\`]?`;
const UNKNOWN_TOOL = [new RegExp(`unknown tool(?:\\s*:\\s*|\\s+)${NAME}`, 'i'), new RegExp(`tool\\s+${NAME}\\s+(?:not found|is not available)`, 'i')];

/** The tool name an error says is unknown, lowercased, if it says so. */
export function unknownToolNameOf(text: string): string | undefined {
  const trimmed = text.trim();
  for (const re of UNKNOWN_TOOL) {
    const m = re.exec(trimmed);
    if (m?.[1]) return m[1].toLowerCase();
  }
  return undefined;
}

function hashError(error: unknown): OutcomeHash {
  const text = errorText(error);
  const resultHash = `error:${hashValue(text)}`;
  const unknownToolName = unknownToolNameOf(text);
  return unknownToolName === undefined ? { resultHash } : { resultHash, unknownToolName };
}

// ---- rules 3–8: result objects ---------------------------------------------------------------

/**
 * Rules 3–8 read a result as an agent gateway's `{content, details}`. A plain object with neither
 * key is a framework's own JSON and is hashed whole (rule 2, Revision 4): read as a gateway's, it
 * would hash as `{details: {}, text: ""}` whatever it held, and a result that changes at every
 * call would look the same every time.
 */
export function isGatewayShaped(result: Obj): boolean {
  return Object.hasOwn(result, 'details') || Object.hasOwn(result, 'content');
}

function contentText(result: Obj): string {
  if (!Array.isArray(result.content)) return '';
  const parts: string[] = [];
  for (const item of result.content) {
    if (isPlainObject(item) && typeof item.type === 'string' && typeof item.text === 'string') parts.push(item.text);
  }
  return parts.join('\n').trim();
}

const orNull = (v: unknown): unknown => (v === undefined ? null : v);
const strOr = <T>(v: unknown, d: T): string | T => (typeof v === 'string' ? v : d);

function hashResultObject(toolName: string, args: unknown, action: string | undefined, result: Obj): string | undefined {
  const value = hashedShape(toolName, args, action, result);
  return value === NO_HASH ? undefined : hashValue(value);
}

/** Rules 4–8 say there is nothing to hash. */
const NO_HASH: unique symbol = Symbol('no hash');

/** The value rules 3–8 hash for a gateway-shaped result, or NO_HASH (rule 4). */
function hashedShape(toolName: string, args: unknown, action: string | undefined, result: Obj): unknown {
  const details: Obj = isPlainObject(result.details) ? result.details : {};
  const text = contentText(result);
  if (details.status === 'blocked' && details.deniedReason === 'tool-loop') return NO_HASH;
  if (toolName === 'exec' && typeof details.status === 'string') {
    const exec = execShape(details.status, details, text);
    if (exec !== undefined) return exec;
  }
  if (toolName === 'process' && action === 'poll') {
    return {
      action,
      status: orNull(details.status),
      exitCode: orNull(details.exitCode),
      exitSignal: orNull(details.exitSignal),
      aggregated: orNull(details.aggregated),
      text,
    };
  }
  if (toolName === 'process' && action === 'log') {
    return {
      action,
      status: orNull(details.status),
      totalLines: orNull(details.totalLines),
      totalChars: orNull(details.totalChars),
      truncated: orNull(details.truncated),
      exitCode: orNull(details.exitCode),
      exitSignal: orNull(details.exitSignal),
      text,
    };
  }
  // `details` sits one level under the result, as in `{details, text}` below: the same depth limit.
  if (isOutboundSend(toolName, args, action)) return stripVolatile(details, 1);
  const media = nonTextContent(result);
  return media === undefined ? { details, text } : { details, text, media };
}

/** What §2.2 takes the hash of: an error's text (rule 1), or a value (rules 2–8). */
export type HashedInput = { readonly error: string; readonly value?: undefined } | { readonly error?: undefined; readonly value: unknown };

/**
 * The value `hashOutcome` hashes, before hashing: what the early preset masks (§7.3). Undefined
 * when it hashes nothing (no result, or loopguard's own block echoed back).
 */
export function hashedInput(o: OutcomeInput): HashedInput | undefined {
  if (o.error !== undefined && o.error !== null) return { error: errorText(o.error) };
  if (o.result === undefined) return undefined;
  if (!isPlainObject(o.result) || !isGatewayShaped(o.result)) return { value: o.result };
  const value = hashedShape(o.toolName, o.args, actionOf(o.args, o.action), o.result);
  return value === NO_HASH ? undefined : { value };
}

/**
 * Rule 8's content beside text (loopguard's own, not the gateway's): the content items that are
 * not text blocks — images, audio, embedded resources, resource links — in their order. A result
 * whose content is text only hashes as the gateway hashes it; an image that changes is progress.
 */
function nonTextContent(result: Obj): unknown[] | undefined {
  if (!Array.isArray(result.content)) return undefined;
  let media: unknown[] | undefined;
  for (const item of result.content) {
    if (isPlainObject(item) && typeof item.type === 'string' && typeof item.text === 'string') continue;
    (media ??= []).push(item);
  }
  return media;
}

function execShape(status: string, d: Obj, text: string): Obj | undefined {
  switch (status) {
    case 'running':
      return { status, tail: strOr(d.tail, '') };
    case 'completed':
    case 'failed': {
      const aggregated = typeof d.aggregated === 'string' ? d.aggregated.trim() : '';
      return { status, exitCode: typeof d.exitCode === 'number' ? d.exitCode : null, timedOut: d.timedOut === true, output: aggregated !== '' ? aggregated : text };
    }
    case 'approval-pending':
    case 'approval-unavailable':
      return { status, reason: strOr(d.reason, null), host: strOr(d.host, null), command: strOr(d.command, ''), warningText: strOr(d.warningText, '') };
    default:
      return undefined;
  }
}

// ---- rule 7: outbound sends ------------------------------------------------------------------

const MESSAGE_SEND_ACTIONS = new Set(['send', 'broadcast', 'reply', 'thread-reply', 'sendWithEffect', 'sendAttachment', 'upload-file', 'sticker', 'poll']);
const CHANNEL_TOOLS = new Set(['telegram', 'discord', 'slack', 'matrix', 'googlechat', 'feishu', 'whatsapp', 'signal', 'imessage', 'msteams', 'mattermost', 'line', 'irc']);
const VOLATILE_KEYS = new Set([
  'messageId',
  'message_id',
  'messageIds',
  'platformMessageId',
  'platformMessageIds',
  'fileId',
  'file_id',
  'fileKey',
  'pollId',
  'poll_id',
  'receipt',
  'runId',
  'idempotencyKey',
  'ts',
  'timestamp',
  'sentAt',
  'deliveredAt',
  'createdAt',
]);

export function isOutboundSend(toolName: string, args: unknown, action: string | undefined): boolean {
  if (toolName === 'sessions_send') return true;
  if (toolName === 'message') return action !== undefined && MESSAGE_SEND_ACTIONS.has(action);
  return CHANNEL_TOOLS.has(toolName) && isPlainObject(args) && typeof args.to === 'string';
}

/** A sent message echoed back: its `id` is per delivery, not content. */
function isMessageRecord(o: Obj): boolean {
  return (
    typeof o.id === 'string' &&
    typeof o.text === 'string' &&
    (typeof o.direction === 'string' || typeof o.senderId === 'string' || typeof o.accountId === 'string' || isPlainObject(o.conversation))
  );
}

/**
 * A send's arguments or result without its volatile keys (ids, times) at any depth, and a sent
 * message's own `id`; shared with the openclaw profile, which hashes sends as §2 does. As canonical
 * JSON counts depth: an array or object at depth MAX_DEPTH is too deep, a leaf is not.
 */
export function stripVolatile(value: unknown, depth: number): unknown {
  const isArray = Array.isArray(value);
  if (!isArray && !isPlainObject(value)) return value;
  if (depth >= MAX_DEPTH) throw new RangeError(`nests deeper than ${MAX_DEPTH} levels`);
  if (isArray) return value.map((v) => stripVolatile(v, depth + 1));
  const dropId = isMessageRecord(value);
  // No prototype: a key named `__proto__` stays a plain key, as it was in the parsed JSON.
  const out: Obj = Object.create(null) as Obj;
  for (const [k, v] of Object.entries(value)) {
    if (VOLATILE_KEYS.has(k) || (dropId && k === 'id')) continue;
    out[k] = stripVolatile(v, depth + 1);
  }
  return out;
}
