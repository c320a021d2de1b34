// The wire contract, declared once. Each event and decision type lists its fields here; from
// that one declaration come the TypeScript types (`Shape`), the validator every input passes
// (`validator`), and — in schemas/ — the Avro schemas and the codecs. A field added here is
// added everywhere.
//
// Validation treats every input as hostile: it reads only declared own fields (never the
// prototype chain), builds a fresh object, and checks types and limits, so nothing a producer
// sends can reach state except what is declared.

export const MAX_IDENTITY_LENGTH = 256;
export const MAX_TS = 1e14;

interface FieldBase<T> {
  /** Phantom: the field's TypeScript type. */
  readonly __type?: T;
  readonly doc?: string;
}

export type Field<T = unknown> = FieldBase<T> &
  (
    | { readonly kind: 'string'; readonly maxLength?: number; readonly nonEmpty?: boolean }
    | { readonly kind: 'choice'; readonly symbols: readonly string[]; readonly avroEnum?: string }
    | { readonly kind: 'long'; readonly min: number; readonly max: number }
    | { readonly kind: 'int'; readonly min: number; readonly max: number }
    | { readonly kind: 'boolean' }
    /** Any JSON value; travels as JSON text. */
    | { readonly kind: 'json' }
    /**
     * A string, or a record of optional strings (`{name, message}`) plus optional `loose`
     * members: kept when of their type, dropped (not rejected) otherwise; with `other`, also any
     * other JSON value (a number, boolean or array), which travels as JSON text in the record's
     * member of that name.
     */
    | {
        readonly kind: 'textOrRecord';
        readonly record: string;
        readonly fields: readonly string[];
        readonly loose?: Readonly<Record<string, LooseType>>;
        readonly other?: string;
      }
    | { readonly kind: 'position' }
    /** A nested record (an Avro record of its own, named `record`). */
    | { readonly kind: 'record'; readonly record: string; readonly fields: Fields }
    /** A list of values of one field kind, at most `maxItems` long. */
    | { readonly kind: 'list'; readonly item: Field; readonly maxItems: number }
  );

/** The types a loose record member may have: `number` travels as an Avro double. */
export type LooseType = 'string' | 'number';

export interface Optional<T> {
  readonly optional: true;
  readonly field: Field<T>;
}
export type FieldSpec = Field | Optional<unknown>;
export interface Fields {
  readonly [name: string]: FieldSpec;
}

export const f = {
  identity: (doc?: string): Field<string> => ({ kind: 'string', maxLength: MAX_IDENTITY_LENGTH, doc }),
  name: (doc?: string): Field<string> => ({ kind: 'string', maxLength: MAX_IDENTITY_LENGTH, nonEmpty: true, doc }),
  text: (doc?: string, maxLength?: number): Field<string> => ({ kind: 'string', maxLength, doc }),
  token: (doc?: string, maxLength?: number): Field<string> => ({ kind: 'string', nonEmpty: true, maxLength, doc }),
  choice: <const S extends string>(symbols: readonly S[], doc?: string, avroEnum?: string): Field<S> => ({ kind: 'choice', symbols, doc, avroEnum }),
  timestamp: (doc = 'Event time, epoch ms.'): Field<number> => ({ kind: 'long', min: 0, max: MAX_TS, doc }),
  long: (doc?: string): Field<number> => ({ kind: 'long', min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER, doc }),
  count: (doc?: string): Field<number> => ({ kind: 'int', min: 0, max: 2 ** 31 - 1, doc }),
  boolean: (doc?: string): Field<boolean> => ({ kind: 'boolean', doc }),
  json: (doc?: string): Field<unknown> => ({ kind: 'json', doc }),
  // status, statusCode and code arrived as free-form extras before they were declared, so a
  // value of another type is dropped rather than making the event invalid. Any JSON value but
  // null is an error (docs/behaviour.md §1); numbers, booleans and arrays travel as `json`.
  error: (doc?: string): Field<ErrorValue> => ({
    kind: 'textOrRecord',
    record: 'ToolError',
    fields: ['name', 'message'],
    loose: { status: 'number', statusCode: 'number', code: 'string' },
    other: 'json',
    doc,
  }),
  position: (doc?: string): Field<SourcePosition> => ({ kind: 'position', doc }),
  record: <const F extends Fields>(record: string, fields: F, doc?: string): Field<Shape<F>> => ({ kind: 'record', record, fields, doc }),
  list: <T>(item: Field<T>, maxItems: number, doc?: string): Field<readonly T[]> => ({ kind: 'list', item, maxItems, doc }),
  optional: <T>(field: Field<T>): Optional<T> => ({ optional: true, field }),
};

export interface ErrorObject {
  readonly name?: string;
  readonly message?: string;
  readonly status?: number;
  readonly statusCode?: number;
  readonly code?: string;
}
/** A tool outcome's error: any JSON value but null; objects keep only the members of ErrorObject. */
export type ErrorValue = string | ErrorObject | number | boolean | readonly unknown[];

export interface SourcePosition {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
}

type TypeOf<F> = F extends Optional<infer T> ? T : F extends Field<infer T> ? T : never;
type OptionalKeys<F extends Fields> = { [K in keyof F]: F[K] extends Optional<unknown> ? K : never }[keyof F];
type RequiredKeys<F extends Fields> = Exclude<keyof F, OptionalKeys<F>>;

/** The event form of a declaration: optional fields may be absent. */
export type Shape<F extends Fields> = { readonly [K in RequiredKeys<F>]: TypeOf<F[K]> } & { readonly [K in OptionalKeys<F>]?: TypeOf<F[K]> };
/** The decision form: every field present, optional ones `null` when they do not apply. */
export type Record_<F extends Fields> = { readonly [K in RequiredKeys<F>]: TypeOf<F[K]> } & { readonly [K in OptionalKeys<F>]: TypeOf<F[K]> | null };

export interface TypeDecl<T extends string = string, F extends Fields = Fields> {
  readonly type: T;
  readonly fields: F;
}

export const declare = <const T extends string, const F extends Fields>(type: T, fields: F): TypeDecl<T, F> => ({ type, fields });

export const fieldOf = (spec: FieldSpec): Field => ('optional' in spec ? spec.field : spec);
export const isOptional = (spec: FieldSpec): boolean => 'optional' in spec;

// ---- validation ------------------------------------------------------------------------------

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

export const invalid = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

const own = (o: object, k: string): unknown => (Object.hasOwn(o, k) ? (o as Record<string, unknown>)[k] : undefined);

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks one value against its field; returns the reason it is wrong, or undefined. */
function check(field: Field, v: unknown): string | undefined {
  switch (field.kind) {
    case 'string':
      if (typeof v !== 'string') return 'must be a string';
      if (field.nonEmpty && v === '') return 'must not be empty';
      // Avro carries UTF-8: a lone surrogate would come back as U+FFFD, a different key.
      if (!v.isWellFormed()) return 'must be well-formed Unicode (it has a lone surrogate)';
      if (field.maxLength !== undefined && v.length > field.maxLength) return `must be at most ${field.maxLength} characters (got ${v.length})`;
      return undefined;
    case 'choice':
      return typeof v === 'string' && field.symbols.includes(v) ? undefined : `must be one of ${field.symbols.join(', ')}`;
    case 'long':
    case 'int':
      if (typeof v !== 'number' || !Number.isInteger(v) || v < field.min || v > field.max) return `must be an integer from ${field.min} to ${field.max}`;
      return undefined;
    case 'boolean':
      return typeof v === 'boolean' ? undefined : 'must be a boolean';
    case 'json':
      return v === undefined || typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint' ? 'must be a JSON value' : undefined;
    case 'textOrRecord':
      if (typeof v === 'string') return undefined;
      if (field.other !== undefined && !isRecord(v)) return isJsonValue(v) ? undefined : 'must be a JSON value';
      if (!isRecord(v)) return `must be a string or an object with ${field.fields.join('/')}`;
      for (const k of field.fields) {
        const x = own(v, k);
        if (x !== undefined && x !== null && typeof x !== 'string') return `.${k} must be a string`;
      }
      return undefined;
    case 'position':
      return isRecord(v) ? undefined : 'must be a source position';
    case 'record':
      return isRecord(v) ? checkFields(field.fields, v) : 'must be an object';
    case 'list':
      if (!Array.isArray(v)) return 'must be an array';
      if (v.length > field.maxItems) return `must have at most ${field.maxItems} items (got ${v.length})`;
      for (let i = 0; i < v.length; i++) {
        const wrong = check(field.item, v[i]);
        if (wrong !== undefined) return `[${i}] ${wrong}`;
      }
      return undefined;
    default: {
      const unreachable: never = field;
      return `unknown field kind ${JSON.stringify(unreachable)}`;
    }
  }
}

/** The reason the first declared field of `v` is wrong, or undefined. */
function checkFields(fields: Fields, v: Record<string, unknown>): string | undefined {
  for (const [name, spec] of Object.entries(fields)) {
    const x = own(v, name);
    if (x === undefined || x === null) {
      if (!isOptional(spec)) return `.${name} is required`;
      continue;
    }
    const wrong = check(fieldOf(spec), x);
    if (wrong !== undefined) return `.${name} ${wrong}`;
  }
  return undefined;
}

/**
 * A number, boolean, or array of JSON values (what JSON text can hold besides strings, objects
 * and null): finite numbers only, and arrays whose items are JSON values, so the value is the
 * same after its trip as JSON text (`replay` and Kafka hash the same thing).
 */
function isJsonValue(v: unknown, depth = 0): boolean {
  if (typeof v === 'number') return Number.isFinite(v);
  if (typeof v === 'boolean' || typeof v === 'string' || v === null) return true;
  if (depth > 512) return false;
  if (Array.isArray(v)) return v.every((x) => isJsonValue(x, depth + 1));
  return isRecord(v) && Object.values(v).every((x) => isJsonValue(x, depth + 1));
}

/** A fresh copy holding only what the field declares (error objects keep only their fields). */
function normalise(field: Field, v: unknown): unknown {
  switch (field.kind) {
    case 'textOrRecord':
      if (typeof v === 'string') return v;
      // An array is copied as JSON text carries it (as it reaches loopguard through Kafka).
      if (Array.isArray(v)) return JSON.parse(JSON.stringify(v)) as unknown;
      return isRecord(v) ? normaliseError(field.fields, field.loose ?? {}, v) : v;
    case 'record': {
      const out: Record<string, unknown> = {};
      for (const [name, spec] of Object.entries(field.fields)) {
        const x = own(v as object, name);
        if (x !== undefined && x !== null) out[name] = normalise(fieldOf(spec), x);
      }
      return out;
    }
    case 'list':
      return (v as unknown[]).map((x) => normalise(field.item, x));
    default:
      return v;
  }
}

function normaliseError(fields: readonly string[], loose: Readonly<Record<string, LooseType>>, v: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of fields) {
    const x = own(v, k);
    if (typeof x === 'string') out[k] = x;
  }
  for (const [k, type] of Object.entries(loose)) {
    const x = own(v, k);
    if (type === 'string' ? typeof x === 'string' && x.isWellFormed() : typeof x === 'number' && Number.isFinite(x)) out[k] = x;
  }
  return out;
}

export type Validator<T> = (input: unknown) => Parsed<T>;

/**
 * Validates an input against a declaration: `type` must match, required fields must be present,
 * `null` counts as absent, and each present field must fit its kind and limits. The result holds
 * exactly the declared fields that are present.
 */
export function validator<T extends string, F extends Fields>(decl: TypeDecl<T, F>): Validator<{ readonly type: T } & Shape<F>> {
  const rows = rowValidator(decl);
  const { columns } = rows;
  const row = new Array<unknown>(columns.length);
  return (input) => {
    const wrong = rows.fill(input, row);
    if (wrong !== undefined) return invalid(wrong);
    const out: Record<string, unknown> = { type: decl.type };
    for (let i = 0; i < columns.length; i++) if (row[i] !== undefined) out[columns[i]!] = row[i];
    return { ok: true, value: out as { readonly type: T } & Shape<F> };
  };
}

/**
 * `validator` without the result object, for a hot path that builds its own from the values:
 * `fill` writes each declared field's value (normalised; undefined when absent) into `row`, in
 * declaration order (`columns`), and returns why the input is invalid, or undefined.
 */
export interface RowValidator {
  readonly columns: readonly string[];
  fill(input: unknown, row: unknown[]): string | undefined;
}

export function rowValidator(decl: TypeDecl): RowValidator {
  // Compiled once per declaration: each field gets its own checker and normaliser, so the
  // per-event loop does no destructuring and no switch on the field kind.
  const steps = Object.entries(decl.fields).map(([name, spec]) => compileStep(name, fieldOf(spec), isOptional(spec)));
  const n = steps.length;
  const wrongType = `type: must be ${decl.type}`;
  return {
    columns: steps.map((s) => s.name),
    fill: (input, row) => {
      if (!isRecord(input)) return 'event must be a JSON object';
      if (own(input, 'type') !== decl.type) return wrongType;
      for (let i = 0; i < n; i++) {
        const step = steps[i]!;
        const v = Object.hasOwn(input, step.name) ? input[step.name] : undefined;
        if (v === undefined || v === null) {
          if (!step.optional) return step.required;
          row[i] = undefined;
          continue;
        }
        if (!fits(step, v)) {
          const wrong = step.check(v);
          if (wrong !== undefined) return `${step.name}: ${wrong}`;
        }
        row[i] = step.normalise === undefined ? v : step.normalise(v);
      }
      return undefined;
    },
  };
}

interface Step {
  readonly name: string;
  readonly optional: boolean;
  readonly required: string;
  /** For the hot kinds, what `fits` checks inline: strings (length up to `max`) and integers. */
  readonly plain: 'string' | 'integer' | undefined;
  readonly nonEmpty: boolean;
  readonly min: number;
  readonly max: number;
  readonly check: (v: unknown) => string | undefined;
  /** Undefined when the value is kept as it is. */
  readonly normalise: ((v: unknown) => unknown) | undefined;
}

function compileStep(name: string, field: Field, optional: boolean): Step {
  const copies = field.kind === 'textOrRecord' || field.kind === 'record' || field.kind === 'list';
  const string = field.kind === 'string';
  const integer = field.kind === 'long' || field.kind === 'int';
  return {
    name,
    optional,
    required: `${name}: is required`,
    plain: string ? 'string' : integer ? 'integer' : undefined,
    nonEmpty: string && field.nonEmpty === true,
    min: integer ? field.min : 0,
    max: string ? (field.maxLength ?? Infinity) : integer ? field.max : 0,
    check: (v) => check(field, v),
    normalise: copies ? (v) => normalise(field, v) : undefined,
  };
}

// A valid string or integer is accepted here, in the loop, without a call through the field's
// checker (a different closure per field, so never inlined); anything else goes to the checker,
// which gives the reason. Run for every field of every event. A shortcut only: whatever it
// refuses, `check` decides, so it may refuse a valid value (costing time) but must never accept
// an invalid one.
function fits(step: Step, v: unknown): boolean {
  if (step.plain === 'string') return typeof v === 'string' && v.length <= step.max && (v !== '' || !step.nonEmpty) && v.isWellFormed();
  if (step.plain === 'integer') return typeof v === 'number' && Number.isInteger(v) && v >= step.min && v <= step.max;
  return false;
}
