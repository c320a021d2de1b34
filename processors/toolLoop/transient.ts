// Whether a tool outcome is a transient failure (docs/behaviour.md §4.4). Worked out when the
// event is parsed, from the raw outcome; whether it matters is the run's policy
// (`transientErrors`), applied in the fold.
import type { ErrorObject, ErrorValue } from '../kernel/contract.js';
import { errorText } from './hashRules.js';

const TRANSIENT_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN']);

const TRANSIENT_PHRASES = [
  'rate limit',
  'rate-limit',
  'ratelimit',
  'too many requests',
  'timed out',
  'timeout',
  'temporarily unavailable',
  'service unavailable',
  'bad gateway',
  'gateway timeout',
  'overloaded',
  'econnreset',
  'econnrefused',
  'etimedout',
  'eai_again',
  'socket hang up',
];

/** A status code as a whole word: not next to a Unicode letter, a decimal digit or `_`. */
const TRANSIENT_STATUS_WORD = /(?<![\p{L}\p{Nd}_])(?:429|502|503|504)(?![\p{L}\p{Nd}_])/u;

export interface TransientInput {
  readonly transient?: boolean;
  readonly result?: unknown;
  readonly resultHash?: string;
  readonly error?: ErrorValue;
}

/** §4.4 rules 1–3, in order; `unknownTool` is whether §2.2 rule 1 found an unknown tool. */
export function isTransient(o: TransientInput, unknownTool: boolean): boolean {
  return transientOutcome(o.transient, o.result, o.resultHash, o.error, unknownTool);
}

/** `isTransient` of an outcome's fields, without an object to hold them (parsing calls it for every outcome). */
export function transientOutcome(transient: boolean | undefined, result: unknown, resultHash: string | undefined, error: ErrorValue | undefined, unknownTool: boolean): boolean {
  if (transient !== undefined) return transient;
  // An outcome that carries a result is transient only when it says so (rule 1).
  if (result !== undefined || resultHash !== undefined || error === undefined || unknownTool) return false;
  // Rule 2 reads objects only; any error has rule 1's text for rule 3.
  if (isErrorObject(error) && (transientStatus(error.status) || transientStatus(error.statusCode) || (error.code !== undefined && TRANSIENT_CODES.has(error.code)))) return true;
  return transientText(errorText(error));
}

const isErrorObject = (e: ErrorValue): e is ErrorObject => typeof e === 'object' && !Array.isArray(e);

function transientStatus(s: number | undefined): boolean {
  return s !== undefined && (s === 408 || s === 425 || s === 429 || (s >= 500 && s <= 599));
}

export function transientText(text: string): boolean {
  const lower = text.toLowerCase();
  return TRANSIENT_PHRASES.some((p) => lower.includes(p)) || TRANSIENT_STATUS_WORD.test(text);
}
