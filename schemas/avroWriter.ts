// A faster `type.encode(value, buffer, pos)` for the Avro types loopguard writes per record
// (decisions, changelog states): the same bytes as avsc 5.7, written by one function generated
// per type instead of avsc's generic writers. avsc spends most of a decision's encoding in
// dispatch (each unwrapped union works out its branch from a bucket name, then calls the
// branch's writer through a polymorphic site) and in Tap.writeString (Buffer.byteLength, then a
// loop). Here a union of null and one type is a null check, and a short ASCII string one loop.
//
// Only what avsc would write is written: a value this writer is not sure of (a type error, a
// value avsc might coerce, anything thrown) is handed to avsc's own encode, which then writes
// it or throws its own error. Types with parts it does not know (maps, bytes, fixed, floats,
// logical types, wrapped unions) are left to avsc entirely.
import type avro from 'avsc';

/** Like avsc's Type#encode: the end position, or minus the bytes missing when `buf` is too short. */
export type AvroEncode = (value: unknown, buf: Buffer, pos: number) => number;

/** Thrown inside a compiled writer when avsc should decide about a value. */
const BAIL: unique symbol = Symbol('avsc decides');

// avsc's LongType accepts these (isSafeLong).
const MAX_LONG = 9007199254740990;
/** avsc writes strings of more bytes than this with Buffer#utf8Write, shorter ones with a loop of its own. */
const LOOP_BYTES = 64;

interface AvscType {
  readonly typeName: string;
  readonly fields?: ReadonlyArray<{ readonly name: string; readonly type: AvscType; defaultValue(): unknown }>;
  readonly types?: readonly AvscType[];
  readonly itemsType?: AvscType;
  readonly symbols?: readonly string[];
  toBuffer(v: unknown): Buffer;
}

/** avsc's getTypeBucket. */
function typeBucket(t: AvscType): string {
  switch (t.typeName) {
    case 'double':
    case 'float':
    case 'int':
    case 'long':
      return 'number';
    case 'bytes':
    case 'fixed':
      return 'buffer';
    case 'enum':
      return 'string';
    case 'map':
    case 'error':
    case 'record':
      return 'object';
    default:
      return t.typeName;
  }
}

class Unsupported extends Error {}

/** Node's Buffer has it, untyped; avsc calls it. */
type Utf8Writable = Buffer & { utf8Write(s: string, offset: number, length: number): number };

// Tap.writeLong, byte for byte (writes past the end of buf are dropped, as there).
function writeLong(buf: Buffer, pos: number, n: number): number {
  if (n >= -1073741824 && n < 1073741824) {
    let m = n >= 0 ? n << 1 : (~n << 1) | 1;
    for (;;) {
      const b = m & 0x7f;
      m >>= 7;
      if (m === 0) {
        buf[pos++] = b;
        return pos;
      }
      buf[pos++] = b | 0x80;
    }
  }
  let f = n >= 0 ? n * 2 : -n * 2 - 1;
  for (;;) {
    const b = f & 0x7f;
    f /= 128;
    if (f < 1) {
      buf[pos++] = b;
      return pos;
    }
    buf[pos++] = b | 0x80;
  }
}

// Tap.writeString. Its loop for short strings writes an unpaired surrogate as three bytes of
// its own (Buffer#write writes U+FFFD), so any string but plain ASCII that short goes the same
// way. Longer ones go to Buffer#utf8Write, as there (a loop does not beat it at 69 ASCII chars).
function writeString(buf: Buffer, pos: number, s: string): number {
  const chars = s.length;
  if (chars <= LOOP_BYTES) {
    const start = pos;
    // ASCII: as many bytes as chars; the length takes one byte up to 63, two for 64.
    if (chars < 64) buf[pos++] = chars << 1;
    else {
      buf[pos++] = 0x80;
      buf[pos++] = 0x01;
    }
    let i = 0;
    for (; i < chars; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      buf[pos++] = c;
    }
    if (i === chars) return pos;
    pos = start;
  }
  const len = Buffer.byteLength(s);
  pos = writeLong(buf, pos, len);
  let at = pos;
  pos += len;
  if (pos > buf.length) return pos;
  if (len > LOOP_BYTES) {
    (buf as Utf8Writable).utf8Write(s, at, len); // Buffer#write(…, 'utf8') without its argument checks
    return pos;
  }
  for (let i = 0; i < chars; i++) {
    let c1 = s.charCodeAt(i);
    let c2: number;
    if (c1 < 0x80) buf[at++] = c1;
    else if (c1 < 0x800) {
      buf[at++] = (c1 >> 6) | 0xc0;
      buf[at++] = (c1 & 0x3f) | 0x80;
    } else if ((c1 & 0xfc00) === 0xd800 && ((c2 = s.charCodeAt(i + 1)) & 0xfc00) === 0xdc00) {
      c1 = 0x10000 + ((c1 & 0x03ff) << 10) + (c2 & 0x03ff);
      i++;
      buf[at++] = (c1 >> 18) | 0xf0;
      buf[at++] = ((c1 >> 12) & 0x3f) | 0x80;
      buf[at++] = ((c1 >> 6) & 0x3f) | 0x80;
      buf[at++] = (c1 & 0x3f) | 0x80;
    } else {
      buf[at++] = (c1 >> 12) | 0xe0;
      buf[at++] = ((c1 >> 6) & 0x3f) | 0x80;
      buf[at++] = (c1 & 0x3f) | 0x80;
    }
  }
  return pos;
}

/** A check, in generated code, that `v` is in `bucket` (avsc's getValueBucket(v) === bucket). */
function bucketCheck(v: string, bucket: string): string {
  switch (bucket) {
    case 'object':
      return `(${v} !== null && typeof ${v} === 'object' && !Array.isArray(${v}) && !Buffer.isBuffer(${v}))`;
    case 'array':
      return `Array.isArray(${v})`;
    case 'null':
      return `${v} === null`;
    default:
      return `typeof ${v} === ${JSON.stringify(bucket)}`;
  }
}

/**
 * `type.encode`, compiled into one function (as avsc compiles its record writers, but with
 * unions, strings and nested records inline); avsc's own for a type with parts this writer does
 * not know.
 */
export function compileEncoder(type: avro.Type): AvroEncode {
  const constants: unknown[] = [];
  const constant = (x: unknown): string => {
    constants.push(x);
    return `k${constants.length - 1}`;
  };
  let vars = 1; // v0 is the value
  // Code that writes the value in local `v` (of type `t`) at `pos`, or throws BAIL.
  const gen = (t: AvscType, v: string): string => {
    switch (t.typeName) {
      case 'null':
        return `if (${v} !== null) throw BAIL;\n`;
      case 'boolean':
        return `if (typeof ${v} !== 'boolean') throw BAIL;\nbuf[pos++] = ${v} ? 1 : 0;\n`;
      case 'int':
        return `if (${v} !== (${v} | 0)) throw BAIL;\npos = writeLong(buf, pos, ${v});\n`;
      case 'long':
        return `if (typeof ${v} !== 'number' || ${v} % 1 !== 0 || !(${v} >= ${-MAX_LONG} && ${v} <= ${MAX_LONG})) throw BAIL;\npos = writeLong(buf, pos, ${v});\n`;
      case 'string':
        return `if (typeof ${v} !== 'string') throw BAIL;\npos = writeString(buf, pos, ${v});\n`;
      case 'enum': {
        const i = `i${vars++}`;
        return `const ${i} = typeof ${v} === 'string' ? ${constant(new Map(t.symbols!.map((s, i) => [s, i])))}.get(${v}) : undefined;\nif (${i} === undefined) throw BAIL;\npos = writeLong(buf, pos, ${i});\n`;
      }
      case 'array': {
        const n = `n${vars++}`;
        const i = `i${vars++}`;
        const x = `v${vars++}`;
        return `if (!Array.isArray(${v})) throw BAIL;\nconst ${n} = ${v}.length;\nif (${n} > 0) {\npos = writeLong(buf, pos, ${n});\nfor (let ${i} = 0; ${i} < ${n}; ${i}++) {\nconst ${x} = ${v}[${i}];\n${gen(t.itemsType!, x)}}\n}\nbuf[pos++] = 0;\n`;
      }
      case 'record': {
        let code = `if (${v} === null || typeof ${v} !== 'object') throw BAIL;\n`;
        for (const f of t.fields!) {
          const x = `v${vars++}`;
          code += `const ${x} = ${v}[${JSON.stringify(f.name)}];\n`;
          const fallback = f.defaultValue();
          if (fallback === undefined) code += gen(f.type, x);
          else {
            const bytes = [...f.type.toBuffer(fallback)].map((b) => `buf[pos++] = ${b};\n`).join('');
            code += `if (${x} === undefined) {\n${bytes}} else {\n${gen(f.type, x)}}\n`;
          }
        }
        return code;
      }
      case 'union:unwrapped': {
        const branches = t.types!;
        const buckets = branches.map(typeBucket);
        if (new Set(buckets).size !== branches.length) throw new Unsupported('ambiguous union');
        // Each branch in turn: the bucket decides (no other branch can take the value).
        let code = '';
        branches.forEach((b, i) => {
          const index = `pos = writeLong(buf, pos, ${i});\n`;
          code += `${i === 0 ? '' : 'else '}if (${bucketCheck(v, buckets[i]!)}) {\n${index}${b.typeName === 'null' ? '' : gen(b, v)}}\n`;
        });
        return `${code}else throw BAIL;\n`;
      }
      default:
        throw new Unsupported(t.typeName);
    }
  };

  let write: (buf: Buffer, pos: number, v0: unknown) => number;
  try {
    const body = gen(type as unknown as AvscType, 'v0');
    const names = constants.map((_, i) => `k${i}`);
    write = new Function('writeLong', 'writeString', 'BAIL', 'Buffer', ...names, `return function encode(buf, pos, v0) {\n${body}return pos;\n};`)(
      writeLong,
      writeString,
      BAIL,
      Buffer,
      ...constants,
    ) as typeof write;
  } catch (e) {
    if (e instanceof Unsupported) return (value, b, p) => type.encode(value, b, p);
    throw e;
  }
  return (value, b, p) => {
    let end: number;
    try {
      end = write(b, p, value);
    } catch {
      return type.encode(value, b, p);
    }
    return end <= b.length ? end : b.length - end;
  };
}
