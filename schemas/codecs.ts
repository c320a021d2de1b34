// The wire contract: each topic's Avro schema (the .avsc files beside this module) and the
// mapping between the JSON form of SPEC §1 and the Avro record. The mapping is one to one;
// the only change is that `args` and `result` (any JSON) travel as JSON text.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import avro from 'avsc';
import type { BotDecision } from '../processors/botLoop/react.js';
import type { ConversationState } from '../processors/botLoop/state.js';
import { NO_EFFECT, type RunState, type ToolRecord, type Verdict } from '../processors/toolLoop/state.js';
import type { StoreEntry } from '../topology/task.js';

const here = dirname(fileURLToPath(import.meta.url));
export const SCHEMA_DIR = here.split(/[\\/]/).includes('dist') ? resolve(here, '../../schemas') : here;

export function loadSchema(name: string): avro.Schema {
  return JSON.parse(readFileSync(resolve(SCHEMA_DIR, `${name}.avsc`), 'utf8')) as avro.Schema;
}

export interface ValueCodec<T = unknown> {
  readonly name: string;
  readonly schema: avro.Schema;
  readonly type: avro.Type;
  toAvro(value: T): unknown;
  fromAvro(record: unknown): T;
}

type Obj = Record<string, unknown>;

function codec<T>(name: string, toAvro: (v: T) => unknown, fromAvro: (r: Obj) => T): ValueCodec<T> {
  const schema = loadSchema(name);
  return { name, schema, type: avro.Type.forSchema(schema), toAvro, fromAvro: (r) => fromAvro(r as Obj) };
}

/** Drops nulls: in the JSON form, null and absent mean the same. */
function withoutNulls(r: Obj): Obj {
  const out: Obj = {};
  for (const k of Object.keys(r)) if (r[k] !== null && r[k] !== undefined) out[k] = r[k];
  return out;
}

const TOOL_EVENT_FIELDS = ['type', 'ts', 'eventId', 'sessionKey', 'runId', 'agentId', 'toolCallId', 'toolName', 'args', 'argsHash', 'action', 'result', 'error', 'resultHash', 'unknownToolName'] as const;

export const toolEventCodec = codec<Obj>(
  'tool-event',
  (e) => {
    const out: Obj = {};
    for (const f of TOOL_EVENT_FIELDS) out[f] = e[f] ?? null;
    out.args = e.args === undefined || e.args === null ? null : JSON.stringify(e.args);
    out.result = e.result === undefined || e.result === null ? null : JSON.stringify(e.result);
    const err = e.error;
    out.error = err === undefined || err === null || typeof err === 'string' ? err ?? null : { name: (err as Obj).name ?? null, message: (err as Obj).message ?? null };
    return out;
  },
  (r) => {
    const out = withoutNulls(r);
    if (typeof out.args === 'string') out.args = JSON.parse(out.args);
    if (typeof out.result === 'string') out.result = JSON.parse(out.result);
    if (typeof out.error === 'object') out.error = withoutNulls(out.error as Obj);
    return out;
  },
);

export const channelEventCodec = codec<Obj>(
  'channel-event',
  (e) => ({ ...e, eventId: e.eventId ?? null }),
  (r) => withoutNulls(r),
);

const DECISION_FIELDS: Readonly<Record<string, readonly string[]>> = {
  tool_decision: ['type', 'key', 'sessionKey', 'runId', 'ts', 'toolCallId', 'toolName', 'decision', 'detector', 'level', 'count', 'message', 'pairedToolName', 'notify', 'id', 'source'],
  run_abort: ['type', 'key', 'sessionKey', 'runId', 'ts', 'detector', 'count', 'toolName', 'message', 'id', 'source'],
  bot_decision: ['type', 'key', 'channel', 'accountId', 'conversationId', 'senderId', 'receiverId', 'eventId', 'ts', 'decision', 'cooldownUntil', 'reason', 'id', 'source'],
};

export const decisionCodec = codec<Obj>(
  'decision',
  (d) => d,
  (r) => {
    const out: Obj = {};
    for (const f of DECISION_FIELDS[r.type as string] ?? []) out[f] = r[f] ?? null;
    out.source = { ...(r.source as Obj) };
    return out;
  },
);

// ---- state stores ----------------------------------------------------------------------------

const orUndefined = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

function verdictFromAvro(v: Obj | null): Verdict | null {
  if (v === null) return null;
  if (v.decision === 'allow') return { decision: 'allow' };
  return { decision: v.decision as 'warn' | 'block', detector: v.detector as never, level: v.level as never, count: v.count as number, notify: v.notify as boolean, pairedToolName: orUndefined(v.pairedToolName as string | null) };
}

export const toolLoopStateCodec = codec<StoreEntry<RunState>>(
  'tool-loop-state',
  ({ offset, state: s }) => ({
    offset,
    state: {
      lastTs: s.lastTs, agentId: s.agentId, history: s.history, guard: s.guard, aborted: s.aborted,
      warnings: s.warnings.map(([key, count]) => ({ key, count })),
      seen: s.seen,
    },
  }),
  (r) => {
    const s = r.state as Obj;
    const history = (s.history as Obj[]).map((h): ToolRecord => ({
      toolName: h.toolName as string, argsHash: h.argsHash as string,
      toolCallId: orUndefined(h.toolCallId as string | null), resultHash: orUndefined(h.resultHash as string | null), unknownToolName: orUndefined(h.unknownToolName as string | null),
    }));
    const seen: Record<string, Verdict | null> = {};
    for (const [id, v] of Object.entries(s.seen as Record<string, Obj | null>)) seen[id] = verdictFromAvro(v);
    const guard = s.guard as { remaining: number; window: string[] } | null;
    const aborted = s.aborted as { count: number; toolName: string } | null;
    const state: RunState = {
      lastTs: s.lastTs as number | null, agentId: s.agentId as string | null, history,
      guard: guard && { remaining: guard.remaining, window: [...guard.window] },
      aborted: aborted && { count: aborted.count, toolName: aborted.toolName },
      warnings: (s.warnings as Obj[]).map((w) => [w.key as string, w.count as number] as const),
      seen, effect: NO_EFFECT,
    };
    return { offset: r.offset as number, state };
  },
);

export const botLoopStateCodec = codec<StoreEntry<ConversationState>>(
  'bot-loop-state',
  ({ offset, state: s }) => ({
    offset,
    state: {
      pairs: Object.fromEntries(Object.entries(s.pairs).map(([k, p]) => [k, { timestamps: p.timestamps, cooldown: p.cooldown, seen: p.seen.map(([id, ts]) => ({ id, ts })), streamTime: p.streamTime }])),
      receivers: Object.fromEntries(Object.entries(s.receivers).map(([k, r]) => [k, { events: r.events.map(([ts, senderId]) => ({ ts, senderId })), cooldown: r.cooldown }])),
    },
  }),
  (r) => {
    const s = r.state as { pairs: Record<string, Obj>; receivers: Record<string, Obj> };
    const cooldown = (c: unknown) => (c === null ? null : { start: (c as Obj).start as number, until: (c as Obj).until as number });
    const state: ConversationState = {
      pairs: Object.fromEntries(Object.entries(s.pairs).map(([k, p]) => [k, {
        timestamps: [...(p.timestamps as number[])], cooldown: cooldown(p.cooldown),
        seen: (p.seen as Obj[]).map((x) => [x.id as string, x.ts as number] as const), streamTime: p.streamTime as number,
      }])),
      receivers: Object.fromEntries(Object.entries(s.receivers).map(([k, x]) => [k, { events: (x.events as Obj[]).map((e) => [e.ts as number, e.senderId as string] as const), cooldown: cooldown(x.cooldown) }])),
      effect: { kind: 'none' },
    };
    return { offset: r.offset as number, state };
  },
);

export type { BotDecision };
