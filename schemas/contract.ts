// The Avro schemas of the event and decision topics, derived from the one declaration of each
// type in processors/ (see processors/kernel/contract.ts). A topic carries several types in one
// record: `type` names which, a field is non-null only when every type requires it, and every
// other field is a nullable union defaulting to null, so old and new readers and writers stay
// compatible as optional fields come and go.
import type avro from 'avsc';
import { BOT_MESSAGE, HUMAN_MESSAGE } from '../processors/botLoop/events.js';
import { BOT_DECISION } from '../processors/botLoop/react.js';
import { declare, f, fieldOf, isOptional, type Field, type Fields, type TypeDecl } from '../processors/kernel/contract.js';
import { TOOL_EVENTS } from '../processors/toolLoop/events.js';
import { RUN_ABORT, TOOL_DECISION } from '../processors/toolLoop/react.js';

export interface TopicContract {
  readonly name: string;
  readonly doc: string;
  /** The Avro enum `type` is written with. */
  readonly typeEnum: string;
  readonly decls: readonly TypeDecl[];
  /**
   * Types added after the topic's first schema. The Avro enum `type` cannot gain a symbol
   * without breaking readers of an earlier schema (FULL_TRANSITIVE), so these are written with
   * the first type's symbol and `eventType` naming them; a field every type of `decls` requires
   * stays required, and a later type that lacks it writes its zero value ('' or 0).
   */
  readonly later?: readonly TypeDecl[];
  /** Fields every record has ahead of `type`, set by the topology rather than a processor. */
  readonly envelope?: Fields;
}

/** What the topology adds to every decision: a deterministic id and the input's position. */
export const DECISION_ENVELOPE = declare('envelope', {
  id: f.text('Deterministic: the same input gives the same id.'),
  source: f.position('Topic, partition and offset of the input.'),
});

export const TOOL_EVENT_CONTRACT: TopicContract = {
  name: 'ToolEvent',
  typeEnum: 'ToolEventType',
  decls: TOOL_EVENTS,
  doc: 'A tool event of an agent run (docs/behaviour.md §1). Kafka key: runId, else sessionKey. args and result are JSON text.',
};
export const CHANNEL_EVENT_CONTRACT: TopicContract = {
  name: 'ChannelEvent',
  typeEnum: 'ChannelEventType',
  decls: [BOT_MESSAGE],
  later: [HUMAN_MESSAGE],
  doc: 'An inbound message in a conversation, written by another bot or by a person (docs/behaviour.md §1, §3.1, §4.6). Kafka key: the pair key, or the conversation for human_message; partitioned by conversation.',
};
export const DECISION_CONTRACT: TopicContract = {
  name: 'Decision',
  typeEnum: 'DecisionType',
  decls: [TOOL_DECISION, RUN_ABORT, BOT_DECISION],
  envelope: DECISION_ENVELOPE.fields,
  doc: 'One decision on the control topic (docs/behaviour.md §1). Fields that do not apply to a type are null.',
};

export const allDecls = (contract: TopicContract): readonly TypeDecl[] => [...contract.decls, ...(contract.later ?? [])];

/** Carries the real type of a `later` type (see TopicContract.later). */
export const EVENT_TYPE_FIELD = 'eventType';

export interface MergedField {
  readonly name: string;
  readonly field: Field;
  /** Present in every type of the topic. */
  readonly required: boolean;
}

/** The topic's fields in declaration order (first appearance), with whether all types require them. */
export function mergedFields(contract: TopicContract): MergedField[] {
  const order: string[] = [];
  const fields = new Map<string, Field>();
  for (const decl of allDecls(contract)) {
    for (const [name, spec] of Object.entries(decl.fields)) {
      const field = fieldOf(spec);
      const first = fields.get(name);
      if (first === undefined) {
        order.push(name);
        fields.set(name, field);
        continue;
      }
      // One topic field has one Avro type: two types may share a name only if they agree on it.
      if (JSON.stringify(avroType(first)) !== JSON.stringify(avroType(field)))
        throw new Error(`${contract.name}.${name}: ${decl.type} declares it with another Avro type than an earlier type`);
    }
  }
  const requiredEverywhere = (name: string) => contract.decls.every((d) => Object.hasOwn(d.fields, name) && !isOptional(d.fields[name]!));
  return order.map((name) => ({ name, field: fields.get(name)!, required: requiredEverywhere(name) }));
}

const SOURCE_POSITION: avro.Schema = {
  type: 'record',
  name: 'SourcePosition',
  fields: [
    { name: 'topic', type: 'string' },
    { name: 'partition', type: 'int' },
    { name: 'offset', type: 'long' },
  ],
};

function avroType(field: Field): avro.Schema {
  switch (field.kind) {
    case 'string':
    case 'choice':
    case 'json':
      return 'string';
    case 'long':
      return 'long';
    case 'int':
      return 'int';
    case 'boolean':
      return 'boolean';
    case 'textOrRecord': {
      const loose = Object.entries(field.loose ?? {}).map(([name, t]) => ({ name, type: ['null', t === 'number' ? 'double' : 'string'], default: null }));
      // Another JSON value rides in the record as JSON text: a new union branch would break
      // readers of the earlier schema (FULL_TRANSITIVE), a new member with a default does not.
      const other =
        field.other === undefined
          ? []
          : [{ name: field.other, type: ['null', 'string'], default: null, doc: 'An error that is neither a string nor an object (a number, boolean or array), as JSON text.' }];
      return {
        type: 'record',
        name: field.record,
        fields: [...field.fields.map((name) => ({ name, type: ['null', 'string'], default: null })), ...loose, ...other] as avro.schema.RecordType['fields'],
      };
    }
    case 'position':
      return SOURCE_POSITION;
    case 'record':
      return { type: 'record', name: field.record, fields: Object.entries(field.fields).map(([name, spec]) => avroField(name, fieldOf(spec), !isOptional(spec))) };
    case 'list':
      return { type: 'array', items: avroType(field.item) };
    default: {
      const unreachable: never = field;
      throw new Error(`no Avro type for ${JSON.stringify(unreachable)}`);
    }
  }
}

function avroField(name: string, field: Field, required: boolean): avro.schema.RecordType['fields'][number] {
  const type = avroType(field);
  const doc = field.doc !== undefined ? { doc: field.doc } : {};
  if (required && field.kind !== 'textOrRecord') return { name, type, ...doc };
  // A string-or-record is always a three-way union: null, the string, the record.
  const branches = field.kind === 'textOrRecord' ? ['null', 'string', type] : ['null', type];
  return { name, type: branches as avro.Schema, default: null, ...doc };
}

export function avroSchemaOf(contract: TopicContract): avro.schema.RecordType {
  const envelope = Object.entries(contract.envelope ?? {}).map(([name, spec]) => avroField(name, fieldOf(spec), true));
  const typeField = { name: 'type', type: { type: 'enum', name: contract.typeEnum, symbols: contract.decls.map((d) => d.type) } } as avro.schema.RecordType['fields'][number];
  const fields = mergedFields(contract).map((m) => avroField(m.name, m.field, m.required));
  const later =
    (contract.later ?? []).length > 0
      ? [
          {
            name: EVENT_TYPE_FIELD,
            type: ['null', 'string'],
            default: null,
            doc: `Set for types added later (${contract.later!.map((d) => d.type).join(', ')}): the real type; \`type\` then says ${contract.decls[0]!.type}.`,
          },
        ]
      : [];
  return {
    type: 'record',
    name: contract.name,
    namespace: 'dev.loopguard',
    doc: contract.doc,
    fields: [...envelope, typeField, ...fields, ...(later as avro.schema.RecordType['fields'])],
  };
}
