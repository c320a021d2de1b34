// Each topic's value codec: its Avro type and the mapping between the JSON form of an event or
// decision and the Avro record. Event and decision codecs are derived from the contract (see
// contract.ts); state codecs live in state.ts. The mapping is one to one but for `args` and
// `result` (any JSON), which travel as JSON text.
import type { BotDecision } from '../processors/botLoop/react.js';
import { fieldOf, isRecord, type Field, type SourcePosition } from '../processors/kernel/contract.js';
import type { RunAbort, ToolDecision } from '../processors/toolLoop/react.js';
import { lazyType, type ValueCodec } from './avro.js';
import { allDecls, avroSchemaOf, CHANNEL_EVENT_CONTRACT, DECISION_CONTRACT, EVENT_TYPE_FIELD, mergedFields, TOOL_EVENT_CONTRACT, type TopicContract } from './contract.js';

export type { ValueCodec };

/** A decision as published: what its processor decided, plus the topology's id and source position. */
export type Decision = (ToolDecision | RunAbort | BotDecision) & { readonly id: string; readonly source: SourcePosition };

type Obj = Record<string, unknown>;

/** What a field's non-null JSON value becomes on the wire; undefined: itself. Null and absent travel as null. */
type Wire = ((v: unknown) => unknown) | undefined;

const toWire = (wire: Wire, v: unknown): unknown => (v === undefined || v === null ? null : wire === undefined ? v : wire(v));

function wireOf(field: Field): Wire {
  switch (field.kind) {
    case 'json':
      return (v) => JSON.stringify(v);
    case 'textOrRecord': {
      const keys = [...field.fields, ...Object.keys(field.loose ?? {})];
      const other = field.other;
      return (v) => {
        if (typeof v === 'string') return v;
        if (other !== undefined && !isRecord(v)) return { ...Object.fromEntries(keys.map((k) => [k, null])), [other]: JSON.stringify(v) };
        const r = Object.fromEntries(keys.map((k) => [k, Object.hasOwn(v as object, k) ? ((v as Obj)[k] ?? null) : null]));
        return other === undefined ? r : { ...r, [other]: null };
      };
    }
    case 'record': {
      const members = Object.entries(field.fields).map(([k, spec]) => [k, wireOf(fieldOf(spec))] as const);
      return (v) => {
        const out: Obj = {};
        for (const [k, wire] of members) out[k] = toWire(wire, Object.hasOwn(v as object, k) ? (v as Obj)[k] : undefined);
        return out;
      };
    }
    case 'list': {
      const item = wireOf(field.item);
      return (v) => (v as unknown[]).map((x) => toWire(item, x));
    }
    default:
      return undefined;
  }
}

/**
 * The record of `fields` (and `type`, and `extra` as null) for a JSON value, as one object
 * literal generated for the contract: every output has one hidden class, avsc reads it by
 * names, and no field costs a keyed store. The same as copying a template of nulls and setting
 * each field from the value's own member through its Wire, in order.
 */
function recordBuilder(fields: ReadonlyArray<{ readonly name: string; readonly field: Field }>, extra: readonly string[]): (value: Obj) => Obj {
  const wires = fields.map((x) => wireOf(x.field));
  const members = [
    '"type": value.type',
    ...fields.map(({ name }, i) => {
      const key = JSON.stringify(name);
      const v = `(hasOwn(value, ${key}) ? value[${key}] : undefined)`;
      return `${key}: toWire(${wires[i] === undefined ? 'undefined' : `w${i}`}, ${v})`;
    }),
    ...extra.map((name) => `${JSON.stringify(name)}: null`),
  ];
  return new Function('hasOwn', 'toWire', ...wires.map((_, i) => `w${i}`), `return function toAvro(value) {\nreturn {\n${members.join(',\n')}\n};\n};`)(
    Object.hasOwn,
    toWire,
    ...wires,
  ) as (value: Obj) => Obj;
}

function fromWire(field: Field, v: unknown): unknown {
  switch (field.kind) {
    case 'json':
      return JSON.parse(v as string);
    case 'textOrRecord': {
      if (!isRecord(v)) return v;
      const json = field.other === undefined ? undefined : v[field.other];
      if (typeof json === 'string') return JSON.parse(json) as unknown;
      return withoutNulls(v);
    }
    case 'position':
      return isRecord(v) ? { topic: v.topic, partition: v.partition, offset: v.offset } : v;
    case 'record': {
      // In the JSON form an absent member is left out, as for error objects.
      const out: Obj = {};
      for (const [k, spec] of Object.entries(field.fields)) {
        const x = (v as Obj)[k];
        if (x !== null && x !== undefined) out[k] = fromWire(fieldOf(spec), x);
      }
      return out;
    }
    case 'list':
      return (v as unknown[]).map((x) => fromWire(field.item, x));
    default:
      return v;
  }
}

/**
 * The JSON form of a record of one type, generated per type: `type` first, then each of the
 * type's fields in order that is not null (or null, with `keepNulls`), mapped by fromWire.
 */
function typeReader(fields: ReadonlyArray<{ readonly name: string; readonly field: Field }>, keepNulls: boolean): (r: Obj, t: string) => Obj {
  const code = fields.map(({ name, field }, i) => {
    const key = JSON.stringify(name);
    const value = PLAIN_KINDS.has(field.kind) ? 'v' : `fromWire(f${i}, v)`;
    return `v = r[${key}];\nif (v !== null && v !== undefined) out[${key}] = ${value};\n${keepNulls ? `else out[${key}] = null;\n` : ''}`;
  });
  return new Function('fromWire', ...fields.map((_, i) => `f${i}`), `return function fromAvro(r, t) {\nconst out = { type: t };\nlet v;\n${code.join('')}return out;\n};`)(
    fromWire,
    ...fields.map((x) => x.field),
  ) as (r: Obj, t: string) => Obj;
}

/** Field kinds whose JSON form is their Avro form (fromWire gives them back as they are). */
const PLAIN_KINDS: ReadonlySet<Field['kind']> = new Set(['string', 'choice', 'long', 'int', 'boolean']);

/** In the JSON form, null and absent mean the same. */
function withoutNulls(r: Obj): Obj {
  const out: Obj = {};
  for (const k of Object.keys(r)) if (r[k] !== null && r[k] !== undefined) out[k] = r[k];
  return out;
}

function topicCodec(contract: TopicContract, keepNulls: boolean): ValueCodec<Obj> {
  const schema = avroSchemaOf(contract);
  const envelope = Object.entries(contract.envelope ?? {}).map(([name, spec]) => ({ name, field: fieldOf(spec) }));
  const fields = [...envelope, ...mergedFields(contract)];
  const byType = new Map(allDecls(contract).map((d) => [d.type, [...envelope.map((e) => e.name), ...Object.keys(d.fields)]]));
  const fieldByName = new Map(fields.map((x) => [x.name, x.field]));
  const readers = new Map(
    [...byType].map(([t, names]) => [
      t,
      typeReader(
        names.map((name) => ({ name, field: fieldByName.get(name)! })),
        keepNulls,
      ),
    ]),
  );
  const later = new Set((contract.later ?? []).map((d) => d.type));
  const baseType = contract.decls[0]!.type;
  const required = fields.filter((x) => !('required' in x) || x.required);
  const type = lazyType(schema);
  // Every output is built by one object literal holding every field, so all outputs share one
  // hidden class; adding 20-odd computed keys one by one left each in dictionary mode, which
  // made building it and avsc's reading it several times slower.
  const build = recordBuilder(fields, later.size > 0 ? [EVENT_TYPE_FIELD] : []);
  return {
    name: contract.name,
    schema,
    get type() {
      return type();
    },
    toAvro(value) {
      const out = build(value);
      if (later.size === 0) return out;
      out[EVENT_TYPE_FIELD] = null;
      if (!later.has(value.type as string)) return out;
      out.type = baseType;
      out[EVENT_TYPE_FIELD] = value.type;
      for (const { name, field } of required) if (out[name] === null) out[name] = zeroOf(field);
      return out;
    },
    fromAvro(record) {
      const r = record as Obj;
      const t = (typeof r[EVENT_TYPE_FIELD] === 'string' ? r[EVENT_TYPE_FIELD] : r.type) as string;
      const read = readers.get(t);
      return read === undefined ? { type: t } : read(r, t);
    },
  };
}

/** What a later type writes for a required field it does not have. */
function zeroOf(field: Field): unknown {
  if (field.kind === 'long' || field.kind === 'int') return 0;
  if (field.kind === 'boolean') return false;
  return '';
}

export const toolEventCodec = topicCodec(TOOL_EVENT_CONTRACT, false);
export const channelEventCodec = topicCodec(CHANNEL_EVENT_CONTRACT, false);
export const decisionCodec = topicCodec(DECISION_CONTRACT, true) as unknown as ValueCodec<Decision>;

export { botLoopStateCodec, loadSchema, sessionStateCodec, toolLoopStateCodec, type StoreEntry } from './state.js';
