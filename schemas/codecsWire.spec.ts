import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fieldOf, isRecord, type Field } from '../processors/kernel/contract.js';
import { channelEventCodec, decisionCodec, toolEventCodec, type ValueCodec } from './codecs.js';
import { allDecls, CHANNEL_EVENT_CONTRACT, DECISION_CONTRACT, EVENT_TYPE_FIELD, mergedFields, TOOL_EVENT_CONTRACT, type TopicContract } from './contract.js';
import { avroValue } from './testing/avroValue.js';

type Obj = Record<string, unknown>;

// toAvro as it was before each output was built by a generated object literal: a copy of a
// template of nulls, then every field set through toWire. The generated one must give the same
// record (same members, same order), or throw the same error.
function toWire(field: Field, v: unknown): unknown {
  if (v === undefined || v === null) return null;
  switch (field.kind) {
    case 'json':
      return JSON.stringify(v);
    case 'textOrRecord': {
      if (typeof v === 'string') return v;
      const other = field.other === undefined ? [] : [[field.other, isRecord(v) ? null : JSON.stringify(v)]];
      const own = (k: string) => (isRecord(v) && Object.hasOwn(v, k) ? (v[k] ?? null) : null);
      return Object.fromEntries([...[...field.fields, ...Object.keys(field.loose ?? {})].map((k) => [k, own(k)]), ...other]);
    }
    case 'record':
      return Object.fromEntries(Object.entries(field.fields).map(([k, spec]) => [k, toWire(fieldOf(spec), Object.hasOwn(v as object, k) ? (v as Obj)[k] : undefined)]));
    case 'list':
      return (v as unknown[]).map((x) => toWire(field.item, x));
    default:
      return v;
  }
}

function referenceToAvro(contract: TopicContract): (value: Obj) => Obj {
  const envelope = Object.entries(contract.envelope ?? {}).map(([name, spec]) => ({ name, field: fieldOf(spec) }));
  const fields = [...envelope, ...mergedFields(contract)];
  const later = new Set((contract.later ?? []).map((d) => d.type));
  const baseType = contract.decls[0]!.type;
  const required = fields.filter((x) => !('required' in x) || x.required);
  const template: Obj = JSON.parse(
    JSON.stringify(Object.fromEntries([['type', null], ...fields.map((x) => [x.name, null]), ...(later.size > 0 ? [[EVENT_TYPE_FIELD, null]] : [])])),
  );
  return (value) => {
    const out: Obj = { ...template };
    out.type = value.type;
    for (const { name, field } of fields) out[name] = toWire(field, Object.hasOwn(value, name) ? value[name] : undefined);
    if (later.size === 0) return out;
    out[EVENT_TYPE_FIELD] = null;
    if (!later.has(value.type as string)) return out;
    out.type = baseType;
    out[EVENT_TYPE_FIELD] = value.type;
    for (const { name, field } of required) if (out[name] === null) out[name] = zeroOf(field);
    return out;
  };
}

function zeroOf(field: Field): unknown {
  if (field.kind === 'long' || field.kind === 'int') return 0;
  if (field.kind === 'boolean') return false;
  return '';
}

// fromAvro as it was before it was generated per type.
function fromWire(field: Field, v: unknown): unknown {
  switch (field.kind) {
    case 'json':
      return JSON.parse(v as string);
    case 'textOrRecord':
      if (isRecord(v) && field.other !== undefined && typeof v[field.other] === 'string') return JSON.parse(v[field.other] as string);
      return isRecord(v) ? withoutNulls(v) : v;
    case 'position':
      return isRecord(v) ? { topic: v.topic, partition: v.partition, offset: v.offset } : v;
    case 'record': {
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

function withoutNulls(r: Obj): Obj {
  const out: Obj = {};
  for (const k of Object.keys(r)) if (r[k] !== null && r[k] !== undefined) out[k] = r[k];
  return out;
}

function referenceFromAvro(contract: TopicContract, keepNulls: boolean): (record: unknown) => Obj {
  const envelope = Object.entries(contract.envelope ?? {}).map(([name, spec]) => ({ name, field: fieldOf(spec) }));
  const fields = [...envelope, ...mergedFields(contract)];
  const byType = new Map(allDecls(contract).map((d) => [d.type, [...envelope.map((e) => e.name), ...Object.keys(d.fields)]]));
  const fieldByName = new Map(fields.map((x) => [x.name, x.field]));
  return (record) => {
    const r = record as Obj;
    const out: Obj = {};
    const t = (typeof r[EVENT_TYPE_FIELD] === 'string' ? r[EVENT_TYPE_FIELD] : r.type) as string;
    for (const name of byType.get(t) ?? []) {
      const v = r[name];
      if (v === null || v === undefined) {
        if (keepNulls) out[name] = null;
        continue;
      }
      out[name] = fromWire(fieldByName.get(name)!, v);
    }
    return { type: t, ...out };
  };
}

/** Values of `field`'s kind, absent, null, or now and then of another kind. */
function valueOf(field: Field, depth = 0): fc.Arbitrary<unknown> {
  const ok = ((): fc.Arbitrary<unknown> => {
    switch (field.kind) {
      case 'json':
        return fc.jsonValue({ maxDepth: 2 });
      case 'textOrRecord':
        return fc.oneof(
          fc.string(),
          fc.dictionary(fc.constantFrom(...field.fields, ...Object.keys(field.loose ?? {}), 'other'), fc.oneof(fc.string(), fc.integer(), fc.constant(null))),
        );
      case 'record':
        return fc.record(Object.fromEntries(Object.entries(field.fields).map(([k, spec]) => [k, valueOf(fieldOf(spec), depth + 1)])), { requiredKeys: [] });
      case 'list':
        return fc.array(valueOf(field.item, depth + 1), { maxLength: 4 });
      case 'position':
        return fc.record({ topic: fc.string(), partition: fc.nat(), offset: fc.nat() });
      case 'long':
      case 'int':
        return fc.integer();
      case 'boolean':
        return fc.boolean();
      default:
        return fc.string();
    }
  })();
  return fc.oneof({ weight: 8, arbitrary: ok }, fc.constant(undefined), fc.constant(null), fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.constant({}), fc.constant([])));
}

const cases: Array<[string, TopicContract, ValueCodec<Obj>, boolean]> = [
  ['tool events', TOOL_EVENT_CONTRACT, toolEventCodec, false],
  ['channel events', CHANNEL_EVENT_CONTRACT, channelEventCodec, false],
  ['decisions', DECISION_CONTRACT, decisionCodec as unknown as ValueCodec<Obj>, true],
];

const outcome = (f: () => unknown): { value: string } | { error: string } => {
  try {
    const out = f();
    return { value: JSON.stringify(Object.entries(out as object)) };
  } catch (e) {
    return { error: String(e) };
  }
};

describe('toAvro', () => {
  for (const [name, contract, codec] of cases) {
    it(`builds the record the template-and-toWire mapping built (${name})`, () => {
      const reference = referenceToAvro(contract);
      const envelope = Object.entries(contract.envelope ?? {}).map(([n, spec]) => ({ name: n, field: fieldOf(spec) }));
      const fields = [...envelope, ...mergedFields(contract)];
      const value = fc.record(
        { type: fc.constantFrom(...allDecls(contract).map((d) => d.type)), ...Object.fromEntries(fields.map((x) => [x.name, valueOf(x.field)])) },
        { requiredKeys: ['type'] },
      );
      fc.assert(
        fc.property(value, (v) => {
          expect(outcome(() => codec.toAvro(v as Obj))).toEqual(outcome(() => reference(v as Obj)));
        }),
        { numRuns: 2000 },
      );
    });
  }
});

describe('fromAvro', () => {
  for (const [name, contract, codec, keepNulls] of cases) {
    it(`gives the JSON form the loop over the type's fields gave (${name})`, () => {
      const reference = referenceFromAvro(contract, keepNulls);
      const envelope = Object.entries(contract.envelope ?? {}).map(([n, spec]) => ({ name: n, field: fieldOf(spec) }));
      const fields = [...envelope, ...mergedFields(contract)];
      const value = fc.record(
        { type: fc.constantFrom(...allDecls(contract).map((d) => d.type), 'unknown'), ...Object.fromEntries(fields.map((x) => [x.name, valueOf(x.field)])) },
        { requiredKeys: ['type'] },
      );
      // Records as toAvro makes them, and as avsc reads any the schema allows.
      const record = fc.oneof(
        value
          .map((v) => outcome(() => codec.toAvro(v as Obj)))
          .filter((o): o is { value: string } => 'value' in o)
          .map((o) => Object.fromEntries(JSON.parse(o.value) as Array<[string, unknown]>)),
        avroValue(codec.type),
      );
      fc.assert(
        fc.property(record, (r) => {
          expect(outcome(() => codec.fromAvro(r))).toEqual(outcome(() => reference(r)));
        }),
        { numRuns: 2000 },
      );
    });
  }
});
