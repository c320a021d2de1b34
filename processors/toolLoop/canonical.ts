// Canonical JSON (docs/behaviour.md §2.2): the one text every hash in loopguard is taken of, so a runner
// hashing locally and the processor hashing raw events agree byte for byte.
//
// Keys sorted by JS string order on their raw value, no whitespace; `undefined` written as the
// bare token `undefined`; NaN/±Infinity and bigint as strings; unpaired UTF-16 surrogates
// deleted (in keys too, after sorting); functions/symbols as null; Date/Map/Set as {}; Error as
// {message,name,stack}; Uint8Array as {"data":<base64>,"type":"Uint8Array"}; a value already
// on the current recursion path as "[Circular]".

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function stripSurrogates(s: string): string {
  return s.isWellFormed() ? s : s.replace(LONE_SURROGATE, '');
}

function str(s: string): string {
  return JSON.stringify(stripSurrogates(s));
}

/** Deeper values are refused: hashing stays linear and within the stack for any input. */
export const MAX_DEPTH = 512;

export function canonicalJson(value: unknown): string {
  try {
    const text = writePlain(value, 0);
    if (text !== NOT_PLAIN) return text;
  } catch (e) {
    if (e !== TOO_DEEP) throw e;
  }
  return writeCanonical(value);
}

/** The general writer: every rule above, one value at a time. */
export function writeCanonical(value: unknown): string {
  return write(value, new Set());
}

// The fast path, for values shaped as JSON.parse makes them (plain objects and arrays,
// well-formed strings, finite numbers, booleans, null): written in one walk, keys in canonical
// order, each string as JSON.stringify writes it. Anything else (undefined, NaN, Dates, cycles,
// lone surrogates, index-like keys out of order) takes the general writer, which gives the same
// text for these values, only slower.
const NOT_PLAIN = Symbol('not plain');
const TOO_DEEP = Symbol('too deep');
const INDEX_LIKE = /^(?:0|[1-9]\d{0,9})$/;

function writePlain(value: unknown, depth: number): string | typeof NOT_PLAIN {
  switch (typeof value) {
    case 'string':
      return value.isWellFormed() ? quote(value) : NOT_PLAIN;
    case 'number':
      // Number#toString is JSON's number text for every finite number (-0 is "0").
      return Number.isFinite(value) ? String(value) : NOT_PLAIN;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      if (depth >= MAX_DEPTH) throw TOO_DEEP; // deep, or a cycle: the general writer tells which
      return Array.isArray(value) ? writePlainArray(value, depth) : writePlainObject(value, depth);
    default:
      return NOT_PLAIN;
  }
}

function writePlainArray(items: readonly unknown[], depth: number): string | typeof NOT_PLAIN {
  if (Object.getPrototypeOf(items) !== Array.prototype) return NOT_PLAIN;
  let out = '[';
  for (let i = 0; i < items.length; i++) {
    const v = writePlain(items[i], depth + 1);
    if (v === NOT_PLAIN) return NOT_PLAIN;
    out += i === 0 ? v : ',' + v;
  }
  return out + ']';
}

function writePlainObject(obj: object, depth: number): string | typeof NOT_PLAIN {
  const keys = plainKeys(obj);
  if (keys === undefined) return NOT_PLAIN;
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = writePlain((obj as Record<string, unknown>)[k], depth + 1);
    if (v === NOT_PLAIN) return NOT_PLAIN;
    out += (i === 0 ? '' : ',') + quote(k) + ':' + v;
  }
  return out + '}';
}

/** A plain object's keys in canonical order; undefined when the fast path cannot write it. */
function plainKeys(obj: object): string[] | undefined {
  const proto = Object.getPrototypeOf(obj);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const keys = Object.keys(obj);
  let inOrder = true;
  let indexLike = false;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (!k.isWellFormed()) return undefined;
    if (i > 0 && keys[i - 1]! > k) inOrder = false;
    if (!indexLike && INDEX_LIKE.test(k)) indexLike = true;
  }
  if (!inOrder) {
    // An object orders index-like keys numerically whatever the insertion order.
    if (indexLike) return undefined;
    keys.sort(); // JS string order (UTF-16 code units); keys are distinct, so no ties
  }
  return keys;
}

/** JSON.stringify of a well-formed string; long strings without anything to escape are only quoted. */
function quote(s: string): string {
  return s.length >= LONG_STRING && !needsEscape(s) ? '"' + s + '"' : JSON.stringify(s);
}

// JSON.stringify escapes only '"', '\\' and U+0000–U+001F in a well-formed string, and scans a
// long string several times slower than this check: its Latin-1 bytes (a character above
// U+00FF becomes its low byte, which can only add false alarms), four at a time.
const LONG_STRING = 64;
let scratch = Buffer.allocUnsafe(1 << 16);
let words = new Uint32Array(scratch.buffer, scratch.byteOffset, scratch.length >>> 2);

function needsEscape(s: string): boolean {
  const n = s.length;
  if (n + 4 > scratch.length) {
    scratch = Buffer.allocUnsafe(2 * n + 8);
    words = new Uint32Array(scratch.buffer, scratch.byteOffset, scratch.length >>> 2);
  }
  scratch.write(s, 0, 'latin1');
  scratch.fill(0x41, n, n + 4); // pad the last word with a byte that needs nothing
  const m = (n + 3) >>> 2;
  for (let i = 0; i < m; i++) {
    const x = words[i]!;
    const q = x ^ 0x22222222; // '"'
    const b = x ^ 0x5c5c5c5c; // '\\'
    // A byte below 0x20, or a zero byte of q or b, sets its high bit here (with possible false alarms).
    if ((((x - 0x20202020) & ~x) | ((q - 0x01010101) & ~q) | ((b - 0x01010101) & ~b)) & 0x80808080) return true;
  }
  return false;
}

function write(value: unknown, path: Set<object>): string {
  switch (typeof value) {
    case 'string':
      return str(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : str(String(value));
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
      return 'undefined';
    case 'bigint':
      return str(value.toString());
    case 'function':
    case 'symbol':
      return 'null';
    case 'object':
      return value === null ? 'null' : writeObject(value, path);
    default:
      return 'null';
  }
}

function writeObject(value: object, path: Set<object>): string {
  if (path.has(value)) return '"[Circular]"';
  if (path.size >= MAX_DEPTH) throw new RangeError(`nests deeper than ${MAX_DEPTH} levels`);
  if (value instanceof Date || value instanceof Map || value instanceof Set) return '{}';
  path.add(value);
  try {
    if (Array.isArray(value)) return writeArray(value, path);
    if (value instanceof Uint8Array) return `{"data":${str(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64'))},"type":"Uint8Array"}`;
    if (value instanceof Error)
      return writeEntries(
        [
          ['message', value.message],
          ['name', value.name],
          ['stack', value.stack],
        ],
        path,
      );
    const keys = Object.keys(value).sort();
    return writeEntries(
      keys.map((k) => [k, (value as Record<string, unknown>)[k]]),
      path,
    );
  } finally {
    path.delete(value);
  }
}

function writeArray(items: readonly unknown[], path: Set<object>): string {
  let out = '[';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ',';
    out += write(items[i], path);
  }
  return out + ']';
}

function writeEntries(entries: ReadonlyArray<readonly [string, unknown]>, path: Set<object>): string {
  let out = '{';
  for (let i = 0; i < entries.length; i++) {
    const [k, v] = entries[i]!;
    if (i > 0) out += ',';
    out += str(k) + ':' + write(v, path);
  }
  return out + '}';
}

// The fast path again, for hashing: the canonical text's UTF-8 bytes written straight into one
// reused buffer, which is what SHA-256 reads. Building the text as a string cost a copy of every
// long string to check it for escapes, the concatenations, flattening them, and the UTF-8
// conversion inside the hash (the eleventh round, in `git log -p bench/README.md`). UTF-8 writes '"', '\\' and
// U+0000–U+001F as those single bytes and never uses bytes below 0x80 inside a longer sequence,
// so a string needs JSON's escapes exactly when its bytes hold one of those: then it is written
// again as JSON.stringify gives it. The same values as writePlain take this path, with the same
// text; any other value returns undefined and is hashed from canonicalJson.
const KEEP_BYTES = 1 << 16;

// Buffer#write's own methods per encoding, without its argument checks (a tenth of the hashing
// of a raw event, profiled); the room is checked here. Every Node release has them, but they are
// not documented, so `write` stands in if one is missing.
type Write = (this: Buffer, s: string, offset: number, length: number) => number;
const own = Buffer.prototype as unknown as { utf8Write?: Write; latin1Write?: Write };
const utf8Write: Write =
  typeof own.utf8Write === 'function'
    ? own.utf8Write
    : function (this: Buffer, s, offset, length) {
        return this.write(s, offset, length, 'utf8');
      };
const latin1Write: Write =
  typeof own.latin1Write === 'function'
    ? own.latin1Write
    : function (this: Buffer, s, offset, length) {
        return this.write(s, offset, length, 'latin1');
      };
let bytes: Buffer = Buffer.allocUnsafeSlow(KEEP_BYTES);
let bytesWords: Uint32Array = new Uint32Array(bytes.buffer, 0, bytes.length >>> 2);
let at = 0;
/** Set while canonicalUtf8 writes. */
let writing = false;

/**
 * canonicalJson(value) as UTF-8 bytes, when it is a value shaped as JSON.parse makes them;
 * undefined otherwise. The bytes are a view of a buffer the next call writes over.
 */
export function canonicalUtf8(value: unknown): Uint8Array | undefined {
  // A getter or a proxy trap met while writing (the SDK hashes its caller's values) may hash
  // something itself: that inner call takes the string path and leaves this buffer alone.
  if (writing) return undefined;
  writing = true;
  at = 0;
  try {
    if (!putPlain(value, 0)) return undefined;
  } catch (e) {
    if (e !== TOO_DEEP) throw e;
    return undefined;
  } finally {
    writing = false;
  }
  const view = bytes.subarray(0, at);
  // A huge value's buffer goes with its view: the next call starts small again.
  if (bytes.length > KEEP_BYTES) setBytes(Buffer.allocUnsafeSlow(KEEP_BYTES));
  return view;
}

function setBytes(b: Buffer): void {
  bytes = b;
  bytesWords = new Uint32Array(b.buffer, 0, b.length >>> 2);
}

/** Room for `n` more bytes. */
function room(n: number): void {
  if (at + n <= bytes.length) return;
  const grown = Buffer.allocUnsafeSlow(Math.max(2 * bytes.length, at + n + 8));
  bytes.copy(grown, 0, 0, at);
  setBytes(grown);
}

function putAscii(s: string): void {
  room(s.length);
  at += latin1Write.call(bytes, s, at, bytes.length - at);
}

function putByte(b: number): void {
  room(1);
  bytes[at++] = b;
}

function putPlain(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
      return value.isWellFormed() && (putString(value), true);
    case 'number':
      if (!Number.isFinite(value)) return false;
      putAscii(String(value));
      return true;
    case 'boolean':
      putAscii(value ? 'true' : 'false');
      return true;
    case 'object':
      if (value === null) {
        putAscii('null');
        return true;
      }
      if (depth >= MAX_DEPTH) throw TOO_DEEP;
      return Array.isArray(value) ? putPlainArray(value, depth) : putPlainObject(value, depth);
    default:
      return false;
  }
}

function putPlainArray(items: readonly unknown[], depth: number): boolean {
  if (Object.getPrototypeOf(items) !== Array.prototype) return false;
  putByte(0x5b); // [
  for (let i = 0; i < items.length; i++) {
    if (i > 0) putByte(0x2c); // ,
    if (!putPlain(items[i], depth + 1)) return false;
  }
  putByte(0x5d); // ]
  return true;
}

function putPlainObject(obj: object, depth: number): boolean {
  const keys = plainKeys(obj);
  if (keys === undefined) return false;
  putByte(0x7b); // {
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (i > 0) putByte(0x2c); // ,
    putString(k);
    putByte(0x3a); // :
    if (!putPlain((obj as Record<string, unknown>)[k], depth + 1)) return false;
  }
  putByte(0x7d); // }
  return true;
}

/** A well-formed string, quoted and escaped as JSON.stringify writes it. */
function putString(s: string): void {
  const start = at;
  room(3 * s.length + 2);
  bytes[at++] = 0x22;
  at += utf8Write.call(bytes, s, at, bytes.length - at);
  if (!plainBytes(start + 1, at)) {
    at = start;
    const quoted = JSON.stringify(s);
    room(3 * quoted.length);
    at += utf8Write.call(bytes, quoted, at, bytes.length - at);
    return;
  }
  bytes[at++] = 0x22;
}

const escapes = (b: number): boolean => b < 0x20 || b === 0x22 || b === 0x5c;

/** No byte in [from, to) needs an escape (four at a time, as needsEscape; a false alarm only costs a rewrite). */
function plainBytes(from: number, to: number): boolean {
  let i = from;
  for (; i < to && (i & 3) !== 0; i++) if (escapes(bytes[i]!)) return false;
  const whole = to >>> 2;
  for (let w = i >>> 2; w < whole; w++) {
    const x = bytesWords[w]!;
    const q = x ^ 0x22222222;
    const b = x ^ 0x5c5c5c5c;
    if ((((x - 0x20202020) & ~x) | ((q - 0x01010101) & ~q) | ((b - 0x01010101) & ~b)) & 0x80808080) return false;
  }
  for (i = Math.max(i, whole << 2); i < to; i++) if (escapes(bytes[i]!)) return false;
  return true;
}
