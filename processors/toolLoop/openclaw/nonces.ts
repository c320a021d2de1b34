// External-content wrapper nonces (docs/behaviour.md §6). OpenClaw wraps fetched content between
// `<<<EXTERNAL_UNTRUSTED_CONTENT id="…">>>` and `<<<END_EXTERNAL_UNTRUSTED_CONTENT id="…">>>`,
// the id 16 lowercase hex characters, fresh for every call; before it hashes an outcome, every
// complete pair in any string (value or key) gets both ids replaced by zeros, so the same
// content fetched twice is the same outcome. A pair counts when the start marker is followed by
// the end marker with the same id and no other marker in between; inside JSON-escaped text (the
// quotes of `id=` preceded by backslashes) only when the escaping is consistent: 2^k − 1
// backslashes before each marker quote, and every quote of the body escaped by a multiple of
// that depth. Anything else stays as it was. One pass over the string, so linear in it.
import { canonicalUtf8, canonicalJson, MAX_DEPTH } from '../canonical.js';
import { sha256, sha256Bytes } from '../sha256.js';

const START = '<<<EXTERNAL_UNTRUSTED_CONTENT';
const END = '<<<END_EXTERNAL_UNTRUSTED_CONTENT';
const START_ID = `${START} id=`;
const END_ID = `${END} id=`;
const ZEROS = '0000000000000000';
const MARKER_BYTES = Buffer.from(START);

const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 97 && c <= 102);

/** Backslashes in `s` from `at` on. */
function backslashes(s: string, at: number): number {
  let n = 0;
  while (s.charCodeAt(at + n) === 92) n++;
  return n;
}

/** Where `id=` + `escapes` backslashes + `"` + 16 hex + `escapes` backslashes + `">>>` ends, reading from `at`; -1 if it does not. */
function idEnd(s: string, at: number, escapes: number, id?: string): number {
  if (backslashes(s, at) !== escapes) return -1;
  let i = at + escapes;
  if (s.charCodeAt(i) !== 34) return -1;
  i++;
  for (let k = 0; k < 16; k++) if (!isHex(s.charCodeAt(i + k))) return -1;
  if (id !== undefined && s.slice(i, i + 16) !== id) return -1;
  i += 16;
  if (backslashes(s, i) !== escapes) return -1;
  i += escapes;
  return s.startsWith('">>>', i) ? i + 4 : -1;
}

/** The next marker (start or end) at or after `from`, or -1. */
function nextMarker(s: string, from: number): number {
  for (let i = s.indexOf('<<<', from); i >= 0; i = s.indexOf('<<<', i + 1)) {
    if (s.startsWith(START, i) || s.startsWith(END, i)) return i;
  }
  return -1;
}

/** Every quote in `body` escaped by a multiple of `depth` (its backslashes + 1). */
function consistentlyEscaped(body: string, depth: number): boolean {
  if (depth === 1) return true;
  for (let q = body.indexOf('"'); q >= 0; q = body.indexOf('"', q + 1)) {
    let b = 0;
    while (q - b - 1 >= 0 && body.charCodeAt(q - b - 1) === 92) b++;
    if ((b + 1) % depth !== 0) return false;
  }
  return true;
}

/** `s` with the ids of every complete wrapper pair zeroed. */
export function zeroNonces(s: string): string {
  if (!s.includes(START)) return s;
  let out = '';
  let copied = 0;
  let from = 0;
  for (let i = s.indexOf(START_ID, from); i >= 0; i = s.indexOf(START_ID, from)) {
    const escapes = backslashes(s, i + START_ID.length);
    const bodyStart = idEnd(s, i + START_ID.length, escapes);
    const idAt = i + START_ID.length + escapes + 1;
    const endAt = bodyStart < 0 ? -1 : nextMarker(s, bodyStart);
    const closeEnd = endAt >= 0 && s.startsWith(END_ID, endAt) ? idEnd(s, endAt + END_ID.length, escapes, s.slice(idAt, idAt + 16)) : -1;
    if (closeEnd < 0) {
      from = i + 1;
      continue;
    }
    // A consistent escaping depth is 2^k: each level of JSON escaping doubles the backslashes and adds one.
    const depth = escapes + 1;
    if ((depth & escapes) === 0 && consistentlyEscaped(s.slice(bodyStart, endAt), depth)) {
      const closeIdAt = endAt + END_ID.length + escapes + 1;
      out += s.slice(copied, idAt) + ZEROS + s.slice(idAt + 16, closeIdAt) + ZEROS;
      copied = closeIdAt + 16;
    }
    from = closeEnd;
  }
  return copied === 0 ? s : out + s.slice(copied);
}

/** `value` with zeroNonces applied to every string, keys included. */
function zeroedCopy(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return zeroNonces(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) throw new RangeError(`nests deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) return value.map((v) => zeroedCopy(v, depth + 1));
  // No prototype: a key named `__proto__` stays a plain key, as it was in the parsed JSON.
  const out = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(value)) out[zeroNonces(k)] = zeroedCopy(v, depth + 1);
  return out;
}

/**
 * The profile's digest of an outcome value: the hash of its canonical JSON (§2.2) with wrapper
 * nonces zeroed. The canonical text is searched for a marker first; most outcomes have none.
 */
export function outcomeDigest(value: unknown): string {
  const bytes = canonicalUtf8(value);
  if (bytes !== undefined) {
    if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(MARKER_BYTES) < 0) return sha256Bytes(bytes);
  } else {
    const text = canonicalJson(value);
    if (!text.includes(START)) return sha256(text);
  }
  return sha256(canonicalJson(zeroedCopy(value, 0)));
}
