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
    const plain = sortedPlain(value, 0);
    if (plain !== NOT_PLAIN) return JSON.stringify(plain);
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
// well-formed strings, finite numbers, booleans, null): put keys in canonical order — reusing
// every object already in order — and let the native serialiser write the text. Anything else
// (undefined, NaN, Dates, cycles, lone surrogates, index-like keys out of order) takes the
// general writer, which gives the same text for these values, only slower.
const NOT_PLAIN = Symbol('not plain');
const TOO_DEEP = Symbol('too deep');
const INDEX_LIKE = /^(?:0|[1-9]\d{0,9})$/;

function sortedPlain(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
      return value.isWellFormed() ? value : NOT_PLAIN;
    case 'number':
      return Number.isFinite(value) ? value : NOT_PLAIN;
    case 'boolean':
      return value;
    case 'object':
      if (value === null) return null;
      if (depth >= MAX_DEPTH) throw TOO_DEEP; // deep, or a cycle: the general writer tells which
      return Array.isArray(value) ? sortedArray(value, depth) : sortedObject(value, depth);
    default:
      return NOT_PLAIN;
  }
}

function sortedArray(items: readonly unknown[], depth: number): unknown {
  if (Object.getPrototypeOf(items) !== Array.prototype) return NOT_PLAIN;
  let copy: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const v = sortedPlain(item, depth + 1);
    if (v === NOT_PLAIN) return NOT_PLAIN;
    if (copy === undefined && v !== item) copy = items.slice(0, i);
    if (copy !== undefined) copy.push(v);
  }
  return copy ?? items;
}

function sortedObject(obj: object, depth: number): unknown {
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
  const values = new Array<unknown>(keys.length);
  let changed = !inOrder;
  for (let i = 0; i < keys.length; i++) {
    const v = (obj as Record<string, unknown>)[keys[i]!];
    const s = sortedPlain(v, depth + 1);
    if (s === NOT_PLAIN) return NOT_PLAIN;
    values[i] = s;
    if (s !== v) changed = true;
  }
  if (!changed) return obj;
  // An object orders index-like keys numerically whatever the insertion order.
  if (indexLike && !inOrder) return NOT_PLAIN;
  const order = keys.map((_, i) => i);
  if (!inOrder) order.sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0));
  const out = Object.create(null) as Record<string, unknown>;
  for (const i of order) out[keys[i]!] = values[i];
  return out;
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
