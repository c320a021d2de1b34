// Tool events (docs/behaviour.md §1): their wire declaration, and the parser that turns an
// untrusted object into the hashed event the processor folds. Hashing happens here, once per
// event, so a hostile value (nesting too deep to hash, say) is an invalid event, not a failure
// inside the fold, and the processor only ever sees hashes.
import { declare, f, invalid, isRecord, validator, type Parsed, type Shape } from '../kernel/contract.js';
import { ArgsHashMemo } from './argsMemo.js';
import { canonicalJson } from './canonical.js';
import { actionOf, hashOutcome, hashValue, type OutcomeHash } from './hashing.js';
import { sha256 } from './sha256.js';
import { isTransient } from './transient.js';

/** Hashes are `<toolName>:` + 64 hex digits when loopguard computes them; runners may send their own. */
const MAX_HASH_LENGTH = 512;

const identity = {
  ts: f.timestamp(),
  eventId: f.optional(f.identity('Unique per event; a redelivery repeats it.')),
  sessionKey: f.optional(f.identity()),
  runId: f.optional(f.identity()),
  agentId: f.optional(f.identity()),
};

const call = {
  ...identity,
  toolCallId: f.optional(f.identity()),
  toolName: f.name(),
  args: f.optional(f.json("The call's arguments (JSON text on the wire).")),
  argsHash: f.optional(f.token('Hash of the arguments, when the runner hashes them itself.', MAX_HASH_LENGTH)),
  action: f.optional(f.text("The args' action, for hashed calls.", MAX_HASH_LENGTH)),
};

export const TOOL_CALL = declare('tool_call', call);
export const TOOL_OUTCOME = declare('tool_outcome', {
  ...call,
  result: f.optional(f.json('The tool result (JSON text on the wire).')),
  error: f.optional(f.error()),
  resultHash: f.optional(f.token('Hash of the outcome, when the runner hashes it itself.', MAX_HASH_LENGTH)),
  unknownToolName: f.optional(f.text('With resultHash: the tool the error said is unknown.', MAX_HASH_LENGTH)),
  transient: f.optional(f.boolean('A transient failure (true) or certainly not one (false); absent: judged from the error.')),
});
export const COMPACTION = declare('compaction', identity);
export const RUN_END = declare('run_end', identity);

/** Every tool event type, in wire order. */
export const TOOL_EVENTS = [TOOL_CALL, TOOL_OUTCOME, COMPACTION, RUN_END] as const;
export const TOOL_EVENT_TYPES = TOOL_EVENTS.map((d) => d.type);

export type ToolCallInput = { readonly type: 'tool_call' } & Shape<typeof TOOL_CALL.fields>;
export type ToolOutcomeInput = { readonly type: 'tool_outcome' } & Shape<typeof TOOL_OUTCOME.fields>;
export type ToolEventInput = ToolCallInput | ToolOutcomeInput | ({ readonly type: 'compaction' | 'run_end' } & Shape<typeof identity>);

interface RunIdentity {
  readonly ts: number;
  readonly eventId?: string;
  readonly sessionKey?: string;
  readonly runId?: string;
  readonly agentId?: string;
}

/** What the processor folds: identity, tool and hashes; raw arguments and results are gone. */
export type ToolEvent =
  | (RunIdentity & { readonly type: 'tool_call'; readonly toolCallId?: string; readonly toolName: string; readonly argsHash: string; readonly action?: string })
  | (RunIdentity & {
      readonly type: 'tool_outcome';
      readonly toolCallId?: string;
      readonly toolName: string;
      readonly argsHash: string;
      readonly outcome?: OutcomeHash;
      readonly transient?: boolean;
    })
  | (RunIdentity & { readonly type: 'compaction' | 'run_end' });

export type ToolCall = Extract<ToolEvent, { type: 'tool_call' }>;
export type ToolOutcome = Extract<ToolEvent, { type: 'tool_outcome' }>;

/** The run key (and Kafka key) of a tool event: its run id, else its session key. */
export function runKeyOf(e: { readonly runId?: string | null; readonly sessionKey?: string | null }): string {
  return e.runId || e.sessionKey || '';
}

const validators = {
  tool_call: validator(TOOL_CALL),
  tool_outcome: validator(TOOL_OUTCOME),
  compaction: validator(COMPACTION),
  run_end: validator(RUN_END),
} as const;

/** Validates a tool event (the wire contract plus §1's cross-field rules). */
export function validateToolEvent(input: unknown): Parsed<ToolEventInput> {
  const type = isRecord(input) && Object.hasOwn(input, 'type') ? input.type : undefined;
  if (typeof type !== 'string' || !Object.hasOwn(validators, type)) return invalid(`type: must be one of ${TOOL_EVENT_TYPES.join(', ')}`);
  const parsed = validators[type as keyof typeof validators](input);
  if (!parsed.ok) return parsed;
  const e = parsed.value as ToolEventInput;
  if (!runKeyOf(e)) return invalid('runId: sessionKey or runId is required');
  if ((e.type === 'tool_call' || e.type === 'tool_outcome') && e.args === undefined && e.argsHash === undefined) return invalid('args: args or argsHash is required');
  return { ok: true, value: e };
}

/** Validates and hashes: the one way an input becomes a ToolEvent. */
export function parseToolEvent(input: unknown): Parsed<ToolEvent> {
  const v = validateToolEvent(input);
  if (!v.ok) return v;
  try {
    return { ok: true, value: hashed(v.value) };
  } catch (e) {
    return invalid(`${e instanceof HashInputError ? e.field : 'args'}: ${(e as Error).message}`);
  }
}

class HashInputError extends Error {
  constructor(
    readonly field: string,
    cause: Error,
  ) {
    super(cause.message);
  }
}

function hashedField<T>(field: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw new HashInputError(field, e as Error);
  }
}

// Literals with every field, not spreads: V8 builds spread-with-extra-keys objects an order of
// magnitude slower, and this runs once per event.
function hashed(e: ToolEventInput): ToolEvent {
  switch (e.type) {
    case 'tool_call': {
      const argsHash = e.argsHash ?? hashedField('args', () => callArgsHash(e));
      return {
        type: 'tool_call',
        ts: e.ts,
        eventId: e.eventId,
        sessionKey: e.sessionKey,
        runId: e.runId,
        agentId: e.agentId,
        toolCallId: e.toolCallId,
        toolName: e.toolName,
        argsHash,
        action: actionOf(e.args, e.action),
      };
    }
    case 'tool_outcome': {
      const argsHash = e.argsHash ?? hashedField('args', () => outcomeArgsHash(e));
      const outcome = hashedField('result', () => outcomeOf(e));
      return {
        type: 'tool_outcome',
        ts: e.ts,
        eventId: e.eventId,
        sessionKey: e.sessionKey,
        runId: e.runId,
        agentId: e.agentId,
        toolCallId: e.toolCallId,
        toolName: e.toolName,
        argsHash,
        outcome,
        transient: isTransient(e, outcome?.unknownToolName !== undefined),
      };
    }
    case 'compaction':
    case 'run_end':
      return { type: e.type, ts: e.ts, eventId: e.eventId, sessionKey: e.sessionKey, runId: e.runId, agentId: e.agentId };
    default: {
      const unreachable: never = e;
      return unreachable;
    }
  }
}

const memo = new ArgsHashMemo();

/** hashArgs of a call's arguments; remembered for its outcome. */
function callArgsHash(e: ToolCallInput): string {
  const text = canonicalJson(e.args);
  const hash = `${e.toolName}:${sha256(text)}`;
  if (e.toolCallId !== undefined) memo.remember(e.toolCallId, e.toolName, e.args, hash, text.length);
  return hash;
}

/** hashArgs of an outcome's arguments: its call's hash when they are the same arguments. */
function outcomeArgsHash(e: ToolOutcomeInput): string {
  const known = e.toolCallId !== undefined ? memo.take(e.toolCallId, e.toolName, e.args) : undefined;
  return known ?? `${e.toolName}:${sha256(canonicalJson(e.args))}`;
}

/** §1: of resultHash, error and result, the first present wins. */
function outcomeOf(e: ToolOutcomeInput): OutcomeHash | undefined {
  if (e.resultHash !== undefined) return e.unknownToolName !== undefined ? { resultHash: e.resultHash, unknownToolName: e.unknownToolName } : { resultHash: e.resultHash };
  const o = hashOutcome({ toolName: e.toolName, args: e.args, action: e.action, result: e.result, error: e.error });
  // A name taken from error text can be as long as the event; state keeps a bounded stand-in.
  if (o?.unknownToolName !== undefined && o.unknownToolName.length > MAX_HASH_LENGTH)
    return { resultHash: o.resultHash, unknownToolName: `sha256:${hashValue(o.unknownToolName)}` };
  return o;
}
