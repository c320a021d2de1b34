// What a tool event causes (docs/behaviour.md §2.5–§2.8), worked out from the run's state
// before it. Nothing here changes state: `evolve` folds the event and this verdict afterwards.
import { lookupId } from '../kernel/idMemory.js';
import type { ResolvedLoopDetection } from './config.js';
import { detect } from './detect.js';
import type { ToolCall, ToolEvent, ToolOutcome } from './events.js';
import { DETECTORS, initialRunState, seenKey, shouldNotify, type CompactionGuard, type RunState, type Verdict } from './state.js';

export type Resolve = (agentId: string | undefined) => ResolvedLoopDetection;

export type RunVerdict =
  /** An event that only folds (compaction, run_end, an outcome that does not abort). */
  | { readonly kind: 'fold' }
  /** A redelivered event: no effect on state; a call gets its original verdict again. */
  | { readonly kind: 'repeat'; readonly verdict: Verdict | null }
  | { readonly kind: 'call'; readonly verdict: Verdict; readonly warningKey: string | undefined }
  | { readonly kind: 'abort'; readonly count: number; readonly toolName: string };

const FOLD: RunVerdict = { kind: 'fold' };
const ALLOW: Verdict = { decision: 'allow' };

/** The state an event applies to: a run idle for longer than the TTL starts fresh. */
export function liveState(state: RunState, ts: number, ttlMs: number): RunState {
  return state.lastTs !== null && ts - state.lastTs > ttlMs ? initialRunState : state;
}

export function decideRun(state: RunState, event: ToolEvent, resolve: Resolve, ttlMs: number): RunVerdict {
  const live = liveState(state, event.ts, ttlMs);
  if (event.eventId !== undefined) {
    const seen = lookupId(live.seen, seenKey(event.type, event.eventId));
    if (seen.found) return { kind: 'repeat', verdict: seen.value };
  }
  const cfg = resolve(live.agentId ?? event.agentId);
  switch (event.type) {
    case 'tool_call': return decideCall(live, event, cfg);
    case 'tool_outcome': return decideOutcome(live, event, cfg);
    case 'compaction':
    case 'run_end':
      return FOLD;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

function decideCall(state: RunState, e: ToolCall, cfg: ResolvedLoopDetection): RunVerdict {
  if (state.aborted !== null) {
    return { kind: 'call', verdict: { decision: 'block', detector: DETECTORS.compactionLoopPersisted, level: 'critical', count: state.aborted.count, notify: true }, warningKey: undefined };
  }
  if (cfg.enabled !== true) return { kind: 'call', verdict: ALLOW, warningKey: undefined };
  const found = detect(state.history, { toolName: e.toolName, argsHash: e.argsHash, action: e.action }, cfg);
  if (found === undefined) return { kind: 'call', verdict: ALLOW, warningKey: undefined };
  if (found.decision === 'block') {
    return { kind: 'call', verdict: { decision: 'block', detector: found.detector, level: 'critical', count: found.count, notify: true, pairedToolName: found.pairedToolName }, warningKey: undefined };
  }
  const notify = shouldNotify(state.warnings, found.warningKey, found.count);
  return {
    kind: 'call',
    verdict: { decision: 'warn', detector: found.detector, level: 'warning', count: found.count, notify, pairedToolName: found.pairedToolName },
    warningKey: notify ? found.warningKey : undefined,
  };
}

function decideOutcome(state: RunState, e: ToolOutcome, cfg: ResolvedLoopDetection): RunVerdict {
  if (cfg.enabled === false || e.outcome === undefined || state.guard === null || state.aborted !== null) return FOLD;
  const { count } = guardAfter(state.guard, tripleOf(e, e.outcome.resultHash));
  return count >= cfg.postCompactionGuard.windowSize ? { kind: 'abort', count, toolName: e.toolName } : FOLD;
}

export const tripleOf = (e: ToolOutcome, resultHash: string): string => `${e.toolName}\u0000${e.argsHash}\u0000${resultHash}`;

/** The guard after one more hashed outcome, and how often its triple is now in the window. */
export function guardAfter(guard: CompactionGuard, triple: string): { readonly guard: CompactionGuard | null; readonly count: number } {
  const window = [...guard.window, triple];
  let count = 0;
  for (const t of window) if (t === triple) count++;
  const remaining = guard.remaining - 1;
  return { guard: remaining > 0 ? { remaining, window } : null, count };
}
