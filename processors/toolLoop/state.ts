// Per-run state of the tool-loop processor: plain, immutable, serialisable (snapshotted to the
// changelog), and bounded (docs/behaviour.md §1 "Limits").
import { emptyIds, type IdView } from '../kernel/idMemory.js';

export const DETECTORS = {
  unknownToolRepeat: 'unknown_tool_repeat',
  globalCircuitBreaker: 'global_circuit_breaker',
  knownPollNoProgress: 'known_poll_no_progress',
  pingPong: 'ping_pong',
  genericRepeat: 'generic_repeat',
  compactionLoopPersisted: 'compaction_loop_persisted',
} as const;
export type Detector = (typeof DETECTORS)[keyof typeof DETECTORS];
export const DETECTOR_NAMES = Object.values(DETECTORS);

export interface ToolRecord {
  readonly toolName: string;
  readonly argsHash: string;
  readonly toolCallId?: string | undefined;
  readonly resultHash?: string | undefined;
  readonly unknownToolName?: string | undefined;
}

/** What a tool call was answered: kept per eventId so a redelivered call gets it again. */
export type Verdict =
  | { readonly decision: 'allow' }
  | {
      readonly decision: 'warn' | 'block';
      readonly detector: Detector;
      readonly level: 'warning' | 'critical';
      readonly count: number;
      readonly notify: boolean;
      readonly pairedToolName?: string | undefined;
    };

export interface CompactionGuard {
  readonly remaining: number;
  /** Outcomes seen since compaction, as `toolName \0 argsHash \0 resultHash`. */
  readonly window: readonly string[];
}

export interface RunState {
  /** Event time of the previous event; null for a run with no state (fresh or dropped). */
  readonly lastTs: number | null;
  /** The agent whose config applies: taken from the first event that names one. */
  readonly agentId: string | null;
  readonly history: readonly ToolRecord[];
  readonly guard: CompactionGuard | null;
  readonly aborted: { readonly count: number; readonly toolName: string } | null;
  /** Warning key → count at its last notification, oldest first (at most 256). */
  readonly warnings: ReadonlyArray<readonly [string, number]>;
  /**
   * Event ids seen, as `<type> \0 <eventId>`: the verdict for a tool call, null for other
   * events. Kept beyond run_end, until the run is idle for the TTL.
   */
  readonly seen: IdView<Verdict | null>;
}

/** Records always have all five fields, in this order, so every record has one shape. */
export function toolRecord(toolName: string, argsHash: string, toolCallId: string | undefined, resultHash: string | undefined, unknownToolName: string | undefined): ToolRecord {
  return { toolName, argsHash, toolCallId, resultHash, unknownToolName };
}

export const MAX_WARNING_KEYS = 256;
export const NOTIFY_EVERY = 10;
export const MAX_EVENT_IDS = 4096;
export const MAX_HISTORY_SIZE = 1000;

export const initialRunState: RunState = { lastTs: null, agentId: null, history: [], guard: null, aborted: null, warnings: [], seen: emptyIds(MAX_EVENT_IDS) };

export const seenKey = (type: string, eventId: string): string => `${type}\u0000${eventId}`;

export function appendRecord(history: readonly ToolRecord[], record: ToolRecord, historySize: number): readonly ToolRecord[] {
  const from = Math.max(0, history.length + 1 - historySize);
  const next = history.slice(from);
  next.push(record);
  return next;
}

/**
 * Attaches an outcome to the newest matching record still without a result (matching also
 * the toolCallId when the outcome has one); else appends it as a record of its own.
 */
export function attachOutcome(history: readonly ToolRecord[], outcome: ToolRecord, historySize: number): readonly ToolRecord[] {
  for (let i = history.length - 1; i >= 0; i--) {
    const r = history[i]!;
    if (r.resultHash !== undefined || r.toolName !== outcome.toolName || r.argsHash !== outcome.argsHash) continue;
    if (outcome.toolCallId !== undefined && r.toolCallId !== outcome.toolCallId) continue;
    const next = history.slice();
    next[i] = toolRecord(r.toolName, r.argsHash, r.toolCallId, outcome.resultHash, outcome.unknownToolName);
    return next;
  }
  return appendRecord(history, outcome, historySize);
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
