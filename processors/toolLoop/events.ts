// Tool events (docs/behaviour.md §1): their wire declaration, and the parser that turns an
// untrusted object into the hashed event the processor folds. Hashing happens here, once per
// event, so a hostile value (nesting too deep to hash, say) is an invalid event, not a failure
// inside the fold, and the processor only ever sees hashes.
import { declare, f, invalid, isRecord, rowValidator, type Parsed, type Shape } from '../kernel/contract.js';
import { ArgsHashMemo } from './argsMemo.js';
import { canonicalJson, canonicalUtf8 } from './canonical.js';
import { actionOf, hashArgs, hashOutcome, hashValue, type OutcomeHash } from './hashing.js';
import { openclawOutcome, type OpenclawOutcome } from './openclaw/hashing.js';
import { sha256, sha256Bytes } from './sha256.js';
import { transientOutcome } from './transient.js';

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
  turnId: f.optional(f.identity('The model turn that asked for the call: calls one turn asked for together share it.')),
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
  openclaw: f.optional(
    f.record(
      'OpenclawOutcome',
      {
        resultHash: f.optional(f.token('The outcome hashed as the openclaw profile hashes it; absent for a veto.', MAX_HASH_LENGTH)),
        failureIdentityHash: f.optional(f.token('An exec failure, hashed with its volatile parts masked.', MAX_HASH_LENGTH)),
        noProgress: f.optional(f.boolean('An error, or a write that changed nothing.')),
        unknownToolName: f.optional(f.text('The tool the error said is unknown, as the profile reads it.', MAX_HASH_LENGTH)),
        veto: f.optional(f.boolean("The host's own tool-loop block.")),
      },
      'With resultHash: the outcome as the openclaw profile sees it (openclawOutcome), from runners that hash and whose runs follow the profile.',
    ),
  ),
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
  | (RunIdentity & {
      readonly type: 'tool_call';
      readonly toolCallId?: string;
      /** The model turn that asked for the call (a batch of calls shares it). */
      readonly turnId?: string;
      readonly toolName: string;
      readonly argsHash: string;
      readonly action?: string;
    })
  | (RunIdentity & {
      readonly type: 'tool_outcome';
      readonly toolCallId?: string;
      readonly toolName: string;
      readonly argsHash: string;
      readonly outcome?: OutcomeHash;
      readonly transient?: boolean;
      /** The outcome as the openclaw profile sees it; set only when the parser hashes for the profile. */
      readonly openclaw?: OpenclawOutcome;
    })
  | (RunIdentity & { readonly type: 'compaction' | 'run_end' });

export type ToolCall = Extract<ToolEvent, { type: 'tool_call' }>;
export type ToolOutcome = Extract<ToolEvent, { type: 'tool_outcome' }>;

/** The run key (and Kafka key) of a tool event: its run id, else its session key. */
export function runKeyOf(e: { readonly runId?: string | null; readonly sessionKey?: string | null }): string {
  return e.runId || e.sessionKey || '';
}

/** The session key (and Kafka key, when tool events are keyed by session) of a tool event: its session key, else its run id. */
export function sessionKeyOf(e: { readonly runId?: string | null; readonly sessionKey?: string | null }): string {
  return e.sessionKey || e.runId || '';
}

const rows = {
  tool_call: rowValidator(TOOL_CALL),
  tool_outcome: rowValidator(TOOL_OUTCOME),
  compaction: rowValidator(COMPACTION),
  run_end: rowValidator(RUN_END),
} as const;
type ToolEventType = keyof typeof rows;

// One column per field, shared by the four types: an outcome's fields begin with a call's, a
// call's with the identity's (checked here, so a reordered declaration fails at load).
type Column = keyof typeof TOOL_OUTCOME.fields;
const COLUMNS = rows.tool_outcome.columns as readonly Column[];
for (const r of Object.values(rows)) if (r.columns.some((name, i) => COLUMNS[i] !== name)) throw new Error('tool events: field columns are not shared');
const col = (name: Column): number => COLUMNS.indexOf(name);
const TS = col('ts');
const EVENT_ID = col('eventId');
const SESSION_KEY = col('sessionKey');
const RUN_ID = col('runId');
const AGENT_ID = col('agentId');
const TOOL_CALL_ID = col('toolCallId');
const TURN_ID = col('turnId');
const TOOL_NAME = col('toolName');
const ARGS = col('args');
const ARGS_HASH = col('argsHash');
const ACTION = col('action');
const RESULT = col('result');
const ERROR = col('error');
const RESULT_HASH = col('resultHash');
const UNKNOWN_TOOL_NAME = col('unknownToolName');
const TRANSIENT = col('transient');
const OPENCLAW = col('openclaw');

/**
 * The one row events are validated into (parsing is synchronous, so one is enough): a row is
 * read once into the event, with no validated copy of the input in between.
 */
const row = new Array<unknown>(COLUMNS.length).fill(undefined);

/** Validates `input` into `row`: the wire contract plus §1's cross-field rules. */
function fillRow(input: unknown): { readonly type: ToolEventType; readonly wrong?: undefined } | { readonly wrong: string } {
  const type = isRecord(input) && Object.hasOwn(input, 'type') ? input.type : undefined;
  if (typeof type !== 'string' || !Object.hasOwn(rows, type)) return { wrong: `type: must be one of ${TOOL_EVENT_TYPES.join(', ')}` };
  const t = type as ToolEventType;
  const wrong = rows[t].fill(input, row) ?? crossFieldWrong(t);
  return wrong === undefined ? KNOWN[t] : { wrong };
}

const KNOWN = { tool_call: { type: 'tool_call' }, tool_outcome: { type: 'tool_outcome' }, compaction: { type: 'compaction' }, run_end: { type: 'run_end' } } as const;

function crossFieldWrong(type: ToolEventType): string | undefined {
  if (!(row[RUN_ID] || row[SESSION_KEY])) return 'runId: sessionKey or runId is required';
  if ((type === 'tool_call' || type === 'tool_outcome') && row[ARGS] === undefined && row[ARGS_HASH] === undefined) return 'args: args or argsHash is required';
  return undefined;
}

/** Validates a tool event (the wire contract plus §1's cross-field rules). */
export function validateToolEvent(input: unknown): Parsed<ToolEventInput> {
  const r = fillRow(input);
  if (r.wrong !== undefined) return invalid(r.wrong);
  const out: Record<string, unknown> = { type: r.type };
  const n = rows[r.type].columns.length;
  for (let i = 0; i < n; i++) if (row[i] !== undefined) out[COLUMNS[i]!] = row[i];
  return { ok: true, value: out as ToolEventInput };
}

export interface ParseOptions {
  /** Hash outcomes for the openclaw profile too (§6): when some run may follow it. */
  readonly openclaw: boolean;
}

/** Validates and hashes: the one way an input becomes a ToolEvent. */
export function toolEventParser(options: ParseOptions): (input: unknown) => Parsed<ToolEvent> {
  const { openclaw } = options;
  return (input) => {
    const r = fillRow(input);
    if (r.wrong !== undefined) return invalid(r.wrong);
    try {
      return { ok: true, value: hashed(r.type, openclaw) };
    } catch (e) {
      return invalid(`${e instanceof HashInputError ? e.field : 'args'}: ${(e as Error).message}`);
    }
  };
}

/** The parser for configs that select no profile: §2.2's hashes only. */
export const parseToolEvent = toolEventParser({ openclaw: false });

class HashInputError extends Error {
  constructor(
    readonly field: string,
    cause: Error,
  ) {
    super(cause.message);
  }
}

// The event in the row, hashed. Literals with every field, not spreads: V8 builds
// spread-with-extra-keys objects an order of magnitude slower, and this runs once per event.
function hashed(type: ToolEventType, openclaw: boolean): ToolEvent {
  const ts = row[TS] as number;
  const eventId = row[EVENT_ID] as string | undefined;
  const sessionKey = row[SESSION_KEY] as string | undefined;
  const runId = row[RUN_ID] as string | undefined;
  const agentId = row[AGENT_ID] as string | undefined;
  if (type === 'compaction' || type === 'run_end') return { type, ts, eventId, sessionKey, runId, agentId };
  const toolCallId = row[TOOL_CALL_ID] as string | undefined;
  const toolName = row[TOOL_NAME] as string;
  const args = row[ARGS];
  const action = row[ACTION] as string | undefined;
  if (type === 'tool_call') {
    const argsHash = (row[ARGS_HASH] as string | undefined) ?? callArgsHash(toolCallId, toolName, args);
    const turnId = row[TURN_ID] as string | undefined;
    return { type, ts, eventId, sessionKey, runId, agentId, toolCallId, turnId, toolName, argsHash, action: actionOf(args, action) };
  }
  const argsHash = (row[ARGS_HASH] as string | undefined) ?? outcomeArgsHash(toolCallId, toolName, args);
  const result = row[RESULT];
  const error = row[ERROR] as ToolOutcomeInput['error'];
  const resultHash = row[RESULT_HASH] as string | undefined;
  const outcome = outcomeOf(toolName, args, action, result, error, resultHash, row[UNKNOWN_TOOL_NAME] as string | undefined);
  const transient = transientOutcome(row[TRANSIENT] as boolean | undefined, result, resultHash, error, outcome?.unknownToolName !== undefined);
  if (!openclaw) return { type, ts, eventId, sessionKey, runId, agentId, toolCallId, toolName, argsHash, outcome, transient };
  const profile = profileOutcomeOf(toolName, args, action, result, error, outcome, row[OPENCLAW] as OpenclawOutcome | undefined);
  return { type, ts, eventId, sessionKey, runId, agentId, toolCallId, toolName, argsHash, outcome, transient, openclaw: profile };
}

/**
 * The profile's facts: as the runner sent them; else, for an outcome hashed by a runner without
 * them, its §2.2 hash stands in (an error hash is no progress); else hashed here from the raw values.
 */
function profileOutcomeOf(
  toolName: string,
  args: unknown,
  action: string | undefined,
  result: unknown,
  error: unknown,
  outcome: OutcomeHash | undefined,
  sent: OpenclawOutcome | undefined,
): OpenclawOutcome | undefined {
  if (sent !== undefined) return sent;
  const resultHash = row[RESULT_HASH] as string | undefined;
  if (resultHash !== undefined) {
    const noProgress = resultHash.startsWith('error:') ? true : undefined;
    return { resultHash, noProgress, unknownToolName: outcome?.unknownToolName };
  }
  try {
    const o = openclawOutcome({ toolName, args, action, result, error });
    if (o?.unknownToolName !== undefined && o.unknownToolName.length > MAX_HASH_LENGTH) return { ...o, unknownToolName: `sha256:${hashValue(o.unknownToolName)}` };
    return o;
  } catch (e) {
    throw new HashInputError('result', e as Error);
  }
}

const memo = new ArgsHashMemo();

/** The hashing memo's budget for this thread, in characters of canonical text (a cache: results do not change). */
export function setArgsMemoBudget(chars: number): void {
  memo.setBudget(chars);
}

/** hashArgs of a call's arguments; remembered for its outcome. */
function callArgsHash(toolCallId: string | undefined, toolName: string, args: unknown): string {
  try {
    const bytes = canonicalUtf8(args);
    const text = bytes === undefined ? canonicalJson(args) : undefined;
    const hash = `${toolName}:${text === undefined ? sha256Bytes(bytes!) : sha256(text)}`;
    if (toolCallId !== undefined) memo.remember(toolCallId, toolName, args, hash, text === undefined ? bytes!.length : text.length);
    return hash;
  } catch (e) {
    throw new HashInputError('args', e as Error);
  }
}

/** hashArgs of an outcome's arguments: its call's hash when they are the same arguments. */
function outcomeArgsHash(toolCallId: string | undefined, toolName: string, args: unknown): string {
  try {
    const known = toolCallId !== undefined ? memo.take(toolCallId, toolName, args) : undefined;
    return known ?? hashArgs(toolName, args);
  } catch (e) {
    throw new HashInputError('args', e as Error);
  }
}

/** §1: of resultHash, error and result, the first present wins. */
function outcomeOf(
  toolName: string,
  args: unknown,
  action: string | undefined,
  result: unknown,
  error: ToolOutcomeInput['error'],
  resultHash: string | undefined,
  unknownToolName: string | undefined,
): OutcomeHash | undefined {
  if (resultHash !== undefined) return unknownToolName !== undefined ? { resultHash, unknownToolName } : { resultHash };
  try {
    const o = hashOutcome({ toolName, args, action, result, error });
    // A name taken from error text can be as long as the event; state keeps a bounded stand-in.
    if (o?.unknownToolName !== undefined && o.unknownToolName.length > MAX_HASH_LENGTH)
      return { resultHash: o.resultHash, unknownToolName: `sha256:${hashValue(o.unknownToolName)}` };
    return o;
  } catch (e) {
    throw new HashInputError('result', e as Error);
  }
}
