// Tool events (docs/behaviour.md §1): their wire declaration, and the parser that turns an
// untrusted object into the hashed event the processor folds. Hashing happens here, once per
// event, so a hostile value (nesting too deep to hash, say) is an invalid event, not a failure
// inside the fold, and the processor only ever sees hashes.
import { declare, f, invalid, isRecord, rowValidator, type Parsed, type Shape } from '../kernel/contract.js';
import { ArgsHashMemo } from './argsMemo.js';
import { canonicalJson, canonicalUtf8 } from './canonical.js';
import { actionOf, hashArgs, hashOutcome, hashValue, type OutcomeHash } from './hashRules.js';
import { openclawOutcome, type OpenclawOutcome } from './openclaw/hashing.js';
import { sha256, sha256Bytes } from './sha256.js';
import { transientOutcome } from './transient.js';
import { usesProfile, type ToolLoopConfig } from './config.js';
import { callIdentity, keyedArgsHash } from './early/identity.js';
import { progressHash } from './early/progress.js';
import { loopKeyResolver, MAX_LOOP_KEY_FIELD_LENGTH, MAX_LOOP_KEY_FIELDS, type LoopKey, type LoopKeyOf } from './policy.js';

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
  loopKey: f.optional(
    f.json(
      'Call identity (docs/behaviour.md §7.1): the argument fields that make two calls of the tool the same (an array of names), or false: the call is exempt. JSON text on the wire; wins over the config.',
    ),
  ),
  identityHash: f.optional(f.token("The early preset's identity of the call (earlyCall), when the runner hashes the arguments itself.", MAX_HASH_LENGTH)),
};

export const TOOL_CALL = declare('tool_call', call);
export const TOOL_OUTCOME = declare('tool_outcome', {
  ...call,
  result: f.optional(f.json('The tool result (JSON text on the wire).')),
  error: f.optional(f.error()),
  resultHash: f.optional(f.token('Hash of the outcome, when the runner hashes it itself.', MAX_HASH_LENGTH)),
  unknownToolName: f.optional(f.text('With resultHash: the tool the error said is unknown.', MAX_HASH_LENGTH)),
  transient: f.optional(f.boolean('A transient failure (true) or certainly not one (false); absent: judged from the error.')),
  progressHash: f.optional(f.token('With resultHash: the outcome as the early preset hashes it, its volatile parts masked (earlyOutcome).', MAX_HASH_LENGTH)),
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
      /** The event's own loopKey (§7.1): true, it is `false` (the call is exempt); false, it names fields; undefined, none. */
      readonly exempt?: boolean;
      /** The call's identity for the early preset (§7.2); set only when the parser hashes for the preset. */
      readonly identity?: string;
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
      /** As on a call: the event's own loopKey said the call is exempt (true) or named fields (false). */
      readonly exempt?: boolean;
      /** The call's identity and the outcome's progress hash for the early preset (§7); set only when the parser hashes for the preset. */
      readonly identity?: string;
      readonly progressHash?: string;
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
const LOOP_KEY = col('loopKey');
const IDENTITY_HASH = col('identityHash');
const PROGRESS_HASH = col('progressHash');

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
  if (row[LOOP_KEY] !== undefined && !isLoopKey(row[LOOP_KEY])) return LOOP_KEY_WRONG;
  return undefined;
}

const LOOP_KEY_WRONG = `loopKey: must be false or an array of at most ${MAX_LOOP_KEY_FIELDS} field names, each a string of at most ${MAX_LOOP_KEY_FIELD_LENGTH} characters`;

/** A loopKey as §7.1 allows it: false, or a bounded array of bounded, well-formed names. */
function isLoopKey(v: unknown): v is LoopKey {
  if (v === false) return true;
  return Array.isArray(v) && v.length <= MAX_LOOP_KEY_FIELDS && v.every((k) => typeof k === 'string' && k.length <= MAX_LOOP_KEY_FIELD_LENGTH && k.isWellFormed());
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
  /** Work out the early preset's identities and progress hashes too (§7): when some run may follow it. */
  readonly early?: boolean;
  /** The config's loopKeys (§7.1), when any entry sets one. */
  readonly loopKeys?: LoopKeyOf | undefined;
}

/** What the parser of a config's tool events hashes for. */
export function parseOptionsFor(config: ToolLoopConfig): ParseOptions {
  return { openclaw: usesProfile(config, 'openclaw'), early: usesProfile(config, 'early'), loopKeys: loopKeyResolver(config.policy) };
}

/** Validates and hashes: the one way an input becomes a ToolEvent. */
export function toolEventParser(options: ParseOptions): (input: unknown) => Parsed<ToolEvent> {
  const { openclaw } = options;
  const early = options.early === true;
  const loopKeys = options.loopKeys;
  return (input) => {
    const r = fillRow(input);
    if (r.wrong !== undefined) return invalid(r.wrong);
    try {
      return { ok: true, value: hashed(r.type, openclaw, early, loopKeys) };
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
function hashed(type: ToolEventType, openclaw: boolean, early: boolean, loopKeys: LoopKeyOf | undefined): ToolEvent {
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
  // Call identity (§7.1): the event's own loopKey, else its entry's in the config.
  const own = row[LOOP_KEY] as LoopKey | undefined;
  const loopKey = own ?? loopKeys?.(agentId, toolName);
  const exempt = own === undefined ? undefined : own === false;
  const sentArgsHash = row[ARGS_HASH] as string | undefined;
  if (type === 'tool_call') {
    const argsHash = sentArgsHash ?? (Array.isArray(loopKey) ? keyedHash(toolName, args, loopKey) : callArgsHash(toolCallId, toolName, args));
    const turnId = row[TURN_ID] as string | undefined;
    if (!early) return { type, ts, eventId, sessionKey, runId, agentId, toolCallId, turnId, toolName, argsHash, action: actionOf(args, action), exempt };
    const identity = identityOf(toolName, args, loopKey, sentArgsHash);
    return { type, ts, eventId, sessionKey, runId, agentId, toolCallId, turnId, toolName, argsHash, action: actionOf(args, action), exempt, identity };
  }
  const argsHash = sentArgsHash ?? (Array.isArray(loopKey) ? keyedHash(toolName, args, loopKey) : outcomeArgsHash(toolCallId, toolName, args));
  const result = row[RESULT];
  const error = row[ERROR] as ToolOutcomeInput['error'];
  const resultHash = row[RESULT_HASH] as string | undefined;
  const outcome = outcomeOf(toolName, args, action, result, error, resultHash, row[UNKNOWN_TOOL_NAME] as string | undefined);
  const transient = transientOutcome(row[TRANSIENT] as boolean | undefined, result, resultHash, error, outcome?.unknownToolName !== undefined);
  const profile = openclaw ? profileOutcomeOf(toolName, args, action, result, error, outcome, row[OPENCLAW] as OpenclawOutcome | undefined) : undefined;
  if (!early) {
    if (!openclaw) return { type, ts, eventId, sessionKey, runId, agentId, toolCallId, toolName, argsHash, outcome, transient, exempt };
    return { type, ts, eventId, sessionKey, runId, agentId, toolCallId, toolName, argsHash, outcome, transient, openclaw: profile, exempt };
  }
  const identity = identityOf(toolName, args, loopKey, sentArgsHash);
  const progress = (row[PROGRESS_HASH] as string | undefined) ?? resultHash ?? progressOf(toolName, args, action, result, error);
  return { type, ts, eventId, sessionKey, runId, agentId, toolCallId, toolName, argsHash, outcome, transient, openclaw: profile, exempt, identity, progressHash: progress };
}

/**
 * The early preset's identity of a call (§7.2): as the runner sent it; else, for arguments the
 * runner hashed without it, their hash stands in; else worked out here from the raw arguments.
 */
function identityOf(toolName: string, args: unknown, loopKey: LoopKey | undefined, hashedArgs: string | undefined): string {
  const sent = row[IDENTITY_HASH] as string | undefined;
  if (sent !== undefined) return sent;
  if (hashedArgs !== undefined) return hashedArgs;
  try {
    return callIdentity(toolName, args, loopKey === false ? undefined : loopKey);
  } catch (e) {
    throw new HashInputError('args', e as Error);
  }
}

function progressOf(toolName: string, args: unknown, action: string | undefined, result: unknown, error: unknown): string | undefined {
  try {
    return progressHash({ toolName, args, action, result, error });
  } catch (e) {
    throw new HashInputError('result', e as Error);
  }
}

/** The args hash restricted to a loopKey's fields (§7.1). */
function keyedHash(toolName: string, args: unknown, loopKey: readonly string[]): string {
  try {
    return keyedArgsHash(toolName, args, loopKey);
  } catch (e) {
    throw new HashInputError('args', e as Error);
  }
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
