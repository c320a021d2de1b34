// Per-run state of the tool-loop processor: plain, immutable, serialisable (snapshotted to the
// changelog), and bounded (docs/behaviour.md §1 "Limits").
import { MAX_EVIDENCE_IDS, type Evidence } from '../kernel/evidence.js';
import { emptyIds, type IdView } from '../kernel/idMemory.js';

export type { Evidence };

export const DETECTORS = {
  unknownToolRepeat: 'unknown_tool_repeat',
  globalCircuitBreaker: 'global_circuit_breaker',
  knownPollNoProgress: 'known_poll_no_progress',
  pingPong: 'ping_pong',
  genericRepeat: 'generic_repeat',
  compactionLoopPersisted: 'compaction_loop_persisted',
  blockEscalation: 'block_escalation',
  toolCallBudget: 'tool_call_budget',
  runCallBudget: 'run_call_budget',
  runTimeBudget: 'run_time_budget',
  /** The openclaw profile (§6): one tool cycling through argument sets that fail alike. */
  argumentChurn: 'argument_churn',
  /** The openclaw profile (§6): a second turn blocked for a critical loop ends the run. */
  criticalLoopRepeated: 'critical_loop_repeated',
  /** The early preset (§7): nothing since the call's last outcome made progress. */
  noProgress: 'no_progress',
  /** The early preset (§7): the calls before this one repeat, with the same outcomes, a cycle the run went round before. */
  cycleNoProgress: 'cycle_no_progress',
} as const;
export type Detector = (typeof DETECTORS)[keyof typeof DETECTORS];
export const DETECTOR_NAMES = Object.values(DETECTORS);

export interface ToolRecord {
  readonly toolName: string;
  readonly argsHash: string;
  /**
   * `argsKeyOf(argsHash)`, derived (not stored in the changelog). Scans of the history compare
   * it first: records with other keys have other arguments, so a scan reads the records and
   * not their hash strings, which lie all over the heap (a run's 30 records cost 90 cache
   * misses per call through their strings, the fold's largest cost on a busy partition).
   */
  readonly argsKey: number;
  readonly toolCallId?: string | undefined;
  readonly resultHash?: string | undefined;
  readonly unknownToolName?: string | undefined;
  /** Event time of its call, or of the outcome that appended it; 0 when restored from before records had one. */
  readonly ts: number;
}

/** What a tool call was answered: kept per eventId so a redelivered call gets it again. */
export type Verdict =
  | { readonly decision: 'allow'; readonly shadow?: true | undefined }
  | {
      readonly decision: 'warn' | 'block';
      readonly detector: Detector;
      readonly level: 'warning' | 'critical';
      readonly count: number;
      readonly notify: boolean;
      readonly pairedToolName?: string | undefined;
      /** Decided for a run in shadow mode (§4.1). */
      readonly shadow?: true | undefined;
      /** What makes up `count` (§4.5); absent only on answers restored from before evidence. */
      readonly evidence?: Evidence | undefined;
      /** Not run because another call of its turn was blocked (§6): that call's toolCallId ('' without one). */
      readonly turnBlockedBy?: string | undefined;
    };

/** A hashed outcome seen since compaction. */
export interface GuardEntry {
  /** `toolName \0 argsHash \0 resultHash`. */
  readonly triple: string;
  readonly toolCallId: string | undefined;
  readonly ts: number;
}

export interface CompactionGuard {
  readonly remaining: number;
  readonly window: readonly GuardEntry[];
}

/** Why a run was aborted; every later call is blocked with it (§2.6, §4.2). */
export interface Aborted {
  readonly count: number;
  readonly toolName: string;
  readonly detector: AbortDetector;
  readonly evidence: Evidence | undefined;
}

export type AbortDetector = typeof DETECTORS.compactionLoopPersisted | typeof DETECTORS.blockEscalation | typeof DETECTORS.criticalLoopRepeated;
export const ABORT_DETECTORS: readonly AbortDetector[] = [DETECTORS.compactionLoopPersisted, DETECTORS.blockEscalation, DETECTORS.criticalLoopRepeated];

/** What the openclaw profile keeps per run besides its history (§6). */
export interface ProfileRun {
  /** A turn of the run was blocked for a critical loop: the next such turn ends the run. */
  readonly criticalSeen: boolean;
  /** The run's latest blocked turn: its later calls are blocked with it. */
  readonly turn: BlockedTurn | null;
}

export interface BlockedTurn {
  readonly turnId: string;
  /** The call whose block blocked the turn: its tool and arguments (the profile's names), its id. */
  readonly toolName: string;
  readonly argsHash: string;
  readonly toolCallId: string | undefined;
  readonly detector: Detector;
  readonly count: number;
  readonly pairedToolName: string | undefined;
  readonly evidence: Evidence | undefined;
  /** A critical loop's block: the turn's calls with the trigger's arguments are recorded as vetoes. */
  readonly vetoes: boolean;
  /** The newest MAX_TURN_CALLS toolCallIds of the turn's calls: a block of one echoed back is not the host's own veto. */
  readonly calls: readonly string[];
}

export const MAX_TURN_CALLS = 64;

/**
 * A run of the profile before anything happened to it. Runs of the profile carry it, never
 * null: the changelog writes their records' profile facts with it (§2's runs write none).
 */
export const PROFILE_RUN_START: ProfileRun = { criticalSeen: false, turn: null };

/** Whether the profile's per-run facts hold nothing worth keeping. */
export const profileEmpty = (p: ProfileRun | null): boolean => p === null || (!p.criticalSeen && p.turn === null);

/** A count of calls: how many, since when, and the newest of their ids (evidence, §4.5). */
export interface Tally {
  readonly count: number;
  /** Event time of the first of them. */
  readonly since: number;
  /** The newest MAX_EVIDENCE_IDS of their toolCallIds, oldest first. */
  readonly toolCallIds: readonly string[];
}

/** The calls the run blocked by §2.5 and by budgets (for escalation, §4.2). */
export type Blocked = Tally;

/**
 * The calls the run spent (§5): in all (its `since` is the run's first spent call, the start
 * of the time budget), and per selected tool key, for the keys a budget may ask about.
 */
export interface Spent {
  /** Null while nothing is counted in all (no block of the config sets `budgets`). */
  readonly all: Tally | null;
  /** Tool key → its spent calls, in the order first spent; at most one per key the config gives `maxCalls`. */
  readonly tools: ReadonlyArray<readonly [string, Tally]>;
}

export interface RunState {
  /** Event time of the previous event; null for a run with no state (fresh or dropped). */
  readonly lastTs: number | null;
  /** The agent whose config applies: taken from the first event that names one. */
  readonly agentId: string | null;
  readonly history: readonly ToolRecord[];
  readonly guard: CompactionGuard | null;
  readonly aborted: Aborted | null;
  readonly blocked: Blocked | null;
  /** Spent calls (§5); null until the run spends one that a budget counts. */
  readonly spent: Spent | null;
  /** Warning key → count at its last notification, oldest first (at most 256). */
  readonly warnings: ReadonlyArray<readonly [string, number]>;
  /**
   * Event ids seen, as `<type> \0 <eventId>`: the verdict for a tool call, null for other
   * events. Kept beyond run_end, until the run is idle for the TTL.
   */
  readonly seen: IdView<Verdict | null>;
  /** The openclaw profile's per-run facts; null for runs that never needed them. */
  readonly profile: ProfileRun | null;
}

/**
 * A 32-bit digest of an args hash (FNV-1a over its UTF-16 units): equal hashes have equal keys,
 * so different keys prove different hashes; equal keys prove nothing, and the strings decide.
 * Linear in the string, once per record built.
 */
export function argsKeyOf(argsHash: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < argsHash.length; i++) h = Math.imul(h ^ argsHash.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** Whether `r` was made with these arguments: its key first, the strings only when the keys agree. */
export const hasArgs = (r: ToolRecord, argsKey: number, argsHash: string): boolean => r.argsKey === argsKey && r.argsHash === argsHash;

/** Records always have all seven fields, in this order, so every record has one shape. */
export function toolRecord(
  toolName: string,
  argsHash: string,
  toolCallId: string | undefined,
  resultHash: string | undefined,
  unknownToolName: string | undefined,
  ts: number,
): ToolRecord {
  return keyedRecord(toolName, argsHash, argsKeyOf(argsHash), toolCallId, resultHash, unknownToolName, ts);
}

/** toolRecord with the key of `argsHash` already known (strings shared with an earlier record). */
function keyedRecord(
  toolName: string,
  argsHash: string,
  argsKey: number,
  toolCallId: string | undefined,
  resultHash: string | undefined,
  unknownToolName: string | undefined,
  ts: number,
): ToolRecord {
  return { toolName, argsHash, argsKey, toolCallId, resultHash, unknownToolName, ts };
}

export const MAX_WARNING_KEYS = 256;
export const NOTIFY_EVERY = 10;
export const MAX_EVENT_IDS = 4096;
export const MAX_HISTORY_SIZE = 1000;

/**
 * Every state the fold makes is made here, as one literal with its fields in one order: spreads
 * of states gave V8 eight shapes of RunState, and every read of a state in the fold went
 * megamorphic.
 */
export function runState(
  lastTs: number | null,
  agentId: string | null,
  history: readonly ToolRecord[],
  guard: CompactionGuard | null,
  aborted: Aborted | null,
  blocked: Blocked | null,
  spent: Spent | null,
  warnings: RunState['warnings'],
  seen: RunState['seen'],
  profile: ProfileRun | null,
): RunState {
  return { lastTs, agentId, history, guard, aborted, blocked, spent, warnings, seen, profile };
}

export const initialRunState: RunState = runState(null, null, [], null, null, null, null, [], emptyIds(MAX_EVENT_IDS), null);

/**
 * The key an event id is remembered under: `<type> \0 <eventId>`, and when tool events are
 * keyed by session, where the ids of all its runs share one memory, `<type> \0 <run> \0 <eventId>`.
 */
export const seenKey = (type: string, eventId: string, scope?: string): string => (scope === undefined ? `${type}\u0000${eventId}` : `${type}\u0000${scope}\u0000${eventId}`);

/**
 * How many of the newest records are looked at for strings to share: a loop repeats a call
 * within a few records, and every comparison of two hashes costs (looking through all 30 made
 * pre-hashed replay 15 % slower).
 */
const SHARE_LOOKBACK = 8;

/**
 * A recent record of `history` with the same tool and arguments, newest first: a looping run
 * repeats its calls, and every event brings its own copy of the same 64-character hash. Records
 * built from its strings keep one copy per run instead of one per record (strings compare by
 * content, so nothing else changes).
 */
function sameCall(history: readonly ToolRecord[], toolName: string, argsKey: number, argsHash: string): ToolRecord | undefined {
  for (let i = history.length - 1, end = Math.max(0, history.length - SHARE_LOOKBACK); i >= end; i--) {
    const r = history[i]!;
    if (hasArgs(r, argsKey, argsHash) && r.toolName === toolName) return r;
  }
  return undefined;
}

/** `resultHash` as the string object `history` already holds for it (see sameCall). */
function sharedResult(history: readonly ToolRecord[], resultHash: string | undefined): string | undefined {
  if (resultHash === undefined) return undefined;
  for (let i = history.length - 1, end = Math.max(0, history.length - SHARE_LOOKBACK); i >= end; i--) {
    const h = history[i]!.resultHash;
    if (h === resultHash) return h;
  }
  return resultHash;
}

/** A call's record, sharing the strings of an earlier record of the same call (see sameCall). */
export function callRecord(history: readonly ToolRecord[], toolName: string, argsHash: string, toolCallId: string | undefined, ts: number): ToolRecord {
  const argsKey = argsKeyOf(argsHash);
  const same = sameCall(history, toolName, argsKey, argsHash);
  return same === undefined
    ? keyedRecord(toolName, argsHash, argsKey, toolCallId, undefined, undefined, ts)
    : keyedRecord(same.toolName, same.argsHash, argsKey, toolCallId, undefined, undefined, ts);
}

export function appendRecord(history: readonly ToolRecord[], record: ToolRecord, historySize: number): readonly ToolRecord[] {
  const from = Math.max(0, history.length + 1 - historySize);
  // Copied into a store of the exact size: slice and push grows the copy's store by half again,
  // and every state version holds its own copy; concat is slower.
  const n = history.length - from;
  const next = new Array<ToolRecord>(n + 1);
  for (let i = 0; i < n; i++) next[i] = history[from + i]!;
  next[n] = record;
  return next;
}

/**
 * Attaches an outcome to the newest matching record still without a result (matching also
 * the toolCallId when the outcome has one); else appends it as a record of its own.
 */
export function attachOutcome(history: readonly ToolRecord[], outcome: ToolRecord, historySize: number): readonly ToolRecord[] {
  for (let i = history.length - 1; i >= 0; i--) {
    const r = history[i]!;
    if (r.resultHash !== undefined || !hasArgs(r, outcome.argsKey, outcome.argsHash) || r.toolName !== outcome.toolName) continue;
    if (outcome.toolCallId !== undefined && r.toolCallId !== outcome.toolCallId) continue;
    const next = history.slice();
    next[i] = keyedRecord(r.toolName, r.argsHash, r.argsKey, r.toolCallId, sharedResult(history, outcome.resultHash), outcome.unknownToolName, r.ts);
    return next;
  }
  const same = sameCall(history, outcome.toolName, outcome.argsKey, outcome.argsHash);
  const resultHash = sharedResult(history, outcome.resultHash);
  const record =
    same === undefined && resultHash === outcome.resultHash
      ? outcome
      : keyedRecord(same?.toolName ?? outcome.toolName, same?.argsHash ?? outcome.argsHash, outcome.argsKey, outcome.toolCallId, resultHash, outcome.unknownToolName, outcome.ts);
  return appendRecord(history, record, historySize);
}

/** Notify on a key's first warning, then whenever its count grew by NOTIFY_EVERY or more. */
export function shouldNotify(warnings: RunState['warnings'], key: string, count: number): boolean {
  const last = warnings.find(([k]) => k === key);
  return last === undefined || count - last[1] >= NOTIFY_EVERY;
}

/** Records a notification; the oldest key goes once there are MAX_WARNING_KEYS. */
export function noteWarning(warnings: RunState['warnings'], key: string, count: number): RunState['warnings'] {
  const i = warnings.findIndex(([k]) => k === key);
  if (i >= 0) {
    const next = warnings.slice();
    next[i] = [key, count];
    return next;
  }
  const next = warnings.length >= MAX_WARNING_KEYS ? warnings.slice(warnings.length - MAX_WARNING_KEYS + 1) : warnings.slice();
  next.push([key, count]);
  return next;
}

/** Evidence of a list of records, oldest first: their toolCallIds (the newest 20), since the first's ts. */
export function evidenceOf(items: ReadonlyArray<{ readonly toolCallId?: string | undefined; readonly ts: number }>): Evidence | undefined {
  if (items.length === 0) return undefined;
  const ids: string[] = [];
  for (let i = items.length - 1; i >= 0 && ids.length < MAX_EVIDENCE_IDS; i--) {
    const id = items[i]!.toolCallId;
    if (id !== undefined) ids.push(id);
  }
  return { toolCallIds: ids.reverse(), since: items[0]!.ts };
}

/** A tally with one more call (the run's blocked calls, its spent calls). */
export function addBlock(blocked: Tally | null, toolCallId: string | undefined, ts: number): Tally {
  if (blocked === null) return { count: 1, since: ts, toolCallIds: toolCallId === undefined ? [] : [toolCallId] };
  const toolCallIds = toolCallId === undefined ? blocked.toolCallIds : [...blocked.toolCallIds.slice(Math.max(0, blocked.toolCallIds.length + 1 - MAX_EVIDENCE_IDS)), toolCallId];
  return { count: blocked.count + 1, since: blocked.since, toolCallIds };
}

/** The spent tally of a tool key, if the run has one. */
export function spentOn(spent: Spent | null, key: string): Tally | undefined {
  if (spent === null) return undefined;
  for (const [k, t] of spent.tools) if (k === key) return t;
  return undefined;
}

/**
 * The run's spent calls with one more: in all when `runs`, and on `key` when given (the call's
 * selected key, when a budget may ask about it). Copies at most one entry per tracked key.
 */
export function addSpent(spent: Spent | null, runs: boolean, key: string | undefined, toolCallId: string | undefined, ts: number): Spent | null {
  if (!runs && key === undefined) return spent;
  const all = runs ? addBlock(spent?.all ?? null, toolCallId, ts) : (spent?.all ?? null);
  const before = spent?.tools ?? [];
  if (key === undefined) return { all, tools: before };
  const i = before.findIndex(([k]) => k === key);
  const tools = before.slice();
  if (i < 0) tools.push([key, addBlock(null, toolCallId, ts)]);
  else tools[i] = [key, addBlock(before[i]![1], toolCallId, ts)];
  return { all, tools };
}
