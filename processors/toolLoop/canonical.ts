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
  const proto = Object.getPrototypeOf(obj);
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const keys = Object.keys(obj);
  let inOrder = true;
  let indexLike = false;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (!k.isWellFormed()) return NOT_PLAIN;
    if (i > 0 && keys[i - 1]! > k) inOrder = false;
    if (!indexLike && INDEX_LIKE.test(k)) indexLike = true;
  }
  if (!inOrder) {
    // An object orders index-like keys numerically whatever the insertion order.
    if (indexLike) return NOT_PLAIN;
    keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = writePlain((obj as Record<string, unknown>)[k], depth + 1);
    if (v === NOT_PLAIN) return NOT_PLAIN;
    out += (i === 0 ? '' : ',') + quote(k) + ':' + v;
  }
  return out + '}';
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
