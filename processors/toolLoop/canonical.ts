// Canonical JSON (SPEC §2.2): the one text every hash in loopguard is taken of, so a runner
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
  return write(value, new Set());
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
    if (value instanceof Error) return writeEntries([['message', value.message], ['name', value.name], ['stack', value.stack]], path);
    const keys = Object.keys(value).sort();
    return writeEntries(keys.map((k) => [k, (value as Record<string, unknown>)[k]]), path);
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
