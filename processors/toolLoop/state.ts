// Per-run state of the tool-loop processor: plain, readonly, serialisable (snapshotted to the
// changelog), never mutated in place.

export const DETECTORS = {
  unknownToolRepeat: 'unknown_tool_repeat',
  globalCircuitBreaker: 'global_circuit_breaker',
  knownPollNoProgress: 'known_poll_no_progress',
  pingPong: 'ping_pong',
  genericRepeat: 'generic_repeat',
  compactionLoopPersisted: 'compaction_loop_persisted',
} as const;
export type Detector = (typeof DETECTORS)[keyof typeof DETECTORS];

export interface ToolRecord {
  readonly toolName: string;
  readonly argsHash: string;
  readonly toolCallId?: string | undefined;
  readonly resultHash?: string | undefined;
  readonly unknownToolName?: string | undefined;
}

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

/** What the latest event caused; `react` turns it into decisions. */
export type Effect =
  | { readonly kind: 'none' }
  | { readonly kind: 'verdict'; readonly verdict: Verdict }
  | { readonly kind: 'abort'; readonly count: number; readonly toolName: string };

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
  /** eventId → the verdict it got (tool calls) or null (other events). */
  readonly seen: Readonly<Record<string, Verdict | null>>;
  readonly effect: Effect;
}

/** Records always have all five fields, in this order, so every record has one shape. */
export function toolRecord(toolName: string, argsHash: string, toolCallId: string | undefined, resultHash: string | undefined, unknownToolName: string | undefined): ToolRecord {
  return { toolName, argsHash, toolCallId, resultHash, unknownToolName };
}

export const NO_EFFECT: Effect = { kind: 'none' };

export const initialRunState: RunState = {
  lastTs: null,
  agentId: null,
  history: [],
  guard: null,
  aborted: null,
  warnings: [],
  seen: {},
  effect: NO_EFFECT,
};

export const MAX_WARNING_KEYS = 256;
export const NOTIFY_EVERY = 10;

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
export function noteWarning(warnings: RunState['warnings'], key: string, count: number): { warnings: RunState['warnings']; notify: boolean } {
  const i = warnings.findIndex(([k]) => k === key);
  if (i >= 0) {
    if (count - warnings[i]![1] < NOTIFY_EVERY) return { warnings, notify: false };
    const next = warnings.slice();
    next[i] = [key, count];
    return { warnings: next, notify: true };
  }
  const next = warnings.length >= MAX_WARNING_KEYS ? warnings.slice(warnings.length - MAX_WARNING_KEYS + 1) : warnings.slice();
  next.push([key, count]);
  return { warnings: next, notify: true };
}
