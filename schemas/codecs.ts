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

function toWire(field: Field, v: unknown): unknown {
  if (v === undefined || v === null) return null;
  switch (field.kind) {
    case 'json':
      return JSON.stringify(v);
    case 'textOrRecord':
      if (typeof v === 'string') return v;
      return Object.fromEntries([...field.fields, ...Object.keys(field.loose ?? {})].map((k) => [k, Object.hasOwn(v as object, k) ? ((v as Obj)[k] ?? null) : null]));
    case 'record':
      return Object.fromEntries(Object.entries(field.fields).map(([k, spec]) => [k, toWire(fieldOf(spec), Object.hasOwn(v as object, k) ? (v as Obj)[k] : undefined)]));
    case 'list':
      return (v as unknown[]).map((x) => toWire(field.item, x));
    default:
      return v;
  }
}

function fromWire(field: Field, v: unknown): unknown {
  switch (field.kind) {
    case 'json':
      return JSON.parse(v as string);
    case 'textOrRecord':
      return isRecord(v) ? withoutNulls(v) : v;
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
  const later = new Set((contract.later ?? []).map((d) => d.type));
  const baseType = contract.decls[0]!.type;
  const required = fields.filter((x) => !('required' in x) || x.required);
  const type = lazyType(schema);
  // Every output starts as a copy of one object holding every field, so all outputs share one
  // hidden class; adding 20-odd computed keys one by one left each in dictionary mode, which
  // made building it and avsc's reading it several times slower.
  const template: Obj = JSON.parse(
    JSON.stringify(Object.fromEntries([['type', null], ...fields.map((x) => [x.name, null]), ...(later.size > 0 ? [[EVENT_TYPE_FIELD, null]] : [])])),
  );
  return {
    name: contract.name,
    schema,
    get type() {
      return type();
    },
    toAvro(value) {
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
    },
    fromAvro(record) {
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

export { botLoopStateCodec, loadSchema, toolLoopStateCodec, type StoreEntry } from './state.js';
