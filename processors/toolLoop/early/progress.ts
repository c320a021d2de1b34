// The early preset's progress hash (docs/behaviour.md §7.3): what §2.2 hashes for an outcome —
// the error's text, rule 5's tuple for exec, rule 8's {details, text, media}, a framework's JSON
// whole — with its volatile parts masked first, so two outcomes that differ only in when they
// were made, how long they took, or the ids a service stamps on each answer are the same
// outcome. Computed when an event is parsed, only when the config selects the preset; runners
// that hash send it as the outcome's `progressHash` (`earlyOutcome` is public, as hashOutcome is).
import { MAX_DEPTH } from '../canonical.js';
import { hashedInput, hashValue, type OutcomeInput } from '../hashRules.js';
import { zeroNonces } from '../openclaw/nonces.js';

/** The outcome's progress hash, or undefined when §2.2 hashes nothing for it. */
export function progressHash(o: OutcomeInput): string | undefined {
  const input = hashedInput(o);
  if (input === undefined) return undefined;
  return input.error !== undefined ? `error:${hashValue(maskText(input.error))}` : hashValue(masked(input.value, 0));
}

// ---- keys ----------------------------------------------------------------------------------

/** Keys whose values are volatile wherever they appear, compared in lower case. */
const VOLATILE_NAMES = new Set([
  'ts',
  'time',
  'timestamp',
  'pid',
  'requestid',
  'request_id',
  'request-id',
  'traceid',
  'trace_id',
  'spanid',
  'span_id',
  'correlationid',
  'correlation_id',
]);
const VOLATILE_SUFFIXES = ['_at', '_ts', '_time', '_timestamp'];
const DURATION_WORDS = ['duration', 'took', 'elapsed', 'latency'];
const DURATION_UNITS = ['_ms', 'ms', '_seconds', 'seconds'];
/** No volatile key is longer: a longer key is kept without a look. */
const MAX_VOLATILE_KEY = 64;

/**
 * Whether a key names a volatile value: `ts`, `time`, `timestamp`, `pid`, request, trace, span
 * and correlation ids; a camelCase name ending in `At` (`createdAt`) or a snake_case one ending
 * in `_at`, `_ts`, `_time` or `_timestamp`; a name ending in `duration`, `took`, `elapsed` or
 * `latency`, alone or followed by `Ms`, `_ms`, `Seconds` or `_seconds`.
 */
export function isVolatileKey(key: string): boolean {
  if (key.length > MAX_VOLATILE_KEY) return false;
  const lower = key.toLowerCase();
  if (VOLATILE_NAMES.has(lower)) return true;
  const n = key.length;
  // camelCase `…At`: a lowercase letter or digit, then `At` at the end.
  if (n > 2 && key.charCodeAt(n - 1) === 116 && key.charCodeAt(n - 2) === 65) {
    const c = key.charCodeAt(n - 3);
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) return true;
  }
  if (VOLATILE_SUFFIXES.some((x) => lower.length > x.length && lower.endsWith(x))) return true;
  const unit = DURATION_UNITS.find((u) => lower.endsWith(u));
  const stem = unit === undefined ? lower : lower.slice(0, lower.length - unit.length);
  return DURATION_WORDS.some((w) => stem.endsWith(w));
}

// ---- strings -------------------------------------------------------------------------------

/**
 * The volatile parts of a string, each replaced by a placeholder, in this order: ISO date-times
 * (a date, `T` or a space, h:m:s, up to 9 decimals, `Z` or an offset), clock times, UUIDs, the
 * number after `pid` or `ppid`, a number followed by a unit of time, and 13-digit epoch
 * milliseconds. Each pattern runs only where a cheaper one, without `\b`, finds what any of its
 * matches must contain; each starts a match only at a word boundary and has no nested
 * repetition, so each pass is linear in the string.
 */
const MASKS: ReadonlyArray<readonly [needs: RegExp, pattern: RegExp, by: string]> = [
  [/\d-\d\d[Tt ]\d/, /\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:?\d{2})?/g, '#T'],
  [/\d:\d\d:\d/, /\b\d{1,2}:\d{2}:\d{2}(?:\.\d{1,9})?\b/g, '#t'],
  [/[0-9a-f]{8}-/i, /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '#id'],
  [/pid/i, /\b(?:pid|ppid)\b[\s#:=]*\d+/gi, 'pid #'],
  [/\d\s?[nsumhµ]/i, /\b\d+(?:\.\d+)?\s?(?:ns|us|µs|ms|s|secs?|seconds?|mins?|minutes?|h|hours?)\b/gi, '#d'],
  [/1\d{12}/, /\b1\d{12}\b/g, '#ms'],
];

/** A string with wrapper nonces zeroed (§6.3) and its volatile parts masked. */
export function maskText(s: string): string {
  let out = zeroNonces(s);
  for (const [needs, pattern, by] of MASKS) if (needs.test(out)) out = out.replace(pattern, by);
  return out;
}

/** `value` with volatile keys dropped at any depth and every string masked. */
function masked(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return maskText(value);
  if (typeof value !== 'object' || value === null) return value;
  // As canonical JSON counts depth: an array or object at MAX_DEPTH is too deep to hash.
  if (depth >= MAX_DEPTH) throw new RangeError(`nests deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) return value.map((v) => masked(v, depth + 1));
  // Values JSON does not make (a Uint8Array, a Date: a runner's own) are hashed as they are.
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  // No prototype: a key named `__proto__` stays a plain key, as it was in the parsed JSON.
  const out = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(value)) if (!isVolatileKey(k)) out[k] = masked(v, depth + 1);
  return out;
}
