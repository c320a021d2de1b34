// Values any avsc Type can write, drawn by fast-check. avsc's own `Type#random()` draws from a
// generator seeded by Math.random at load, so a failing case could not be replayed; these come
// from fast-check's seed, which it prints on failure. Test support only: not in the build.
import type avro from 'avsc';
import fc from 'fast-check';

/** The avsc introspection used here (public on avsc's types, absent from its typings). */
interface Introspected {
  readonly typeName: string;
  readonly branchName?: string;
  readonly fields?: ReadonlyArray<{ readonly name: string; readonly type: avro.Type }>;
  readonly symbols?: readonly string[];
  readonly itemsType?: avro.Type;
  readonly valuesType?: avro.Type;
  readonly types?: readonly avro.Type[];
  readonly size?: number;
  readonly underlyingType?: avro.Type;
}

// Past this nesting, containers are empty and unions take their first branch, so recursive
// schemas stay finite.
const MAX_DEPTH = 4;

export function avroValue(type: avro.Type, depth = 0): fc.Arbitrary<unknown> {
  const t = type as unknown as Introspected;
  const deep = depth >= MAX_DEPTH;
  const inner = (x: avro.Type) => avroValue(x, depth + 1);
  switch (t.typeName) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'int':
      return fc.integer();
    case 'long':
      // avsc writes a long only strictly inside ±(2^53 − 1).
      return fc.oneof(
        fc.integer(),
        fc.maxSafeInteger().map((n) => Math.trunc(n / 2)),
      );
    case 'float':
      return fc.float();
    case 'double':
      return fc.double();
    case 'string':
      return fc.string({ unit: 'grapheme', maxLength: 12 });
    case 'bytes':
      return fc.uint8Array({ maxLength: 16 }).map((b) => Buffer.from(b));
    case 'fixed':
      return fc.uint8Array({ minLength: t.size!, maxLength: t.size! }).map((b) => Buffer.from(b));
    case 'enum':
      return fc.constantFrom(...t.symbols!);
    case 'array':
      return fc.array(inner(t.itemsType!), { maxLength: deep ? 0 : 3 });
    case 'map':
      return fc.dictionary(fc.string({ maxLength: 6 }), inner(t.valuesType!), { maxKeys: deep ? 0 : 3 });
    case 'record':
    case 'error':
      return fc.record(Object.fromEntries(t.fields!.map((f) => [f.name, inner(f.type)])));
    case 'union:unwrapped':
      return deep ? inner(t.types![0]!) : fc.oneof(...t.types!.map(inner));
    case 'union:wrapped': {
      const branch = (b: avro.Type) =>
        (b as unknown as Introspected).typeName === 'null' ? fc.constant(null) : inner(b).map((v) => ({ [(b as unknown as Introspected).branchName!]: v }));
      return deep ? branch(t.types![0]!) : fc.oneof(...t.types!.map(branch));
    }
    default:
      if (t.underlyingType !== undefined) return inner(t.underlyingType);
      throw new Error(`avroValue: no generator for avro type ${t.typeName}`);
  }
}
