// Folding one tool event into a run's state (SPEC §2.3, §2.5–§2.8). The verdict for a call is
// computed here, once, and kept in `effect` (and under its eventId) for `react` and redeliveries.
import type { ResolvedLoopDetection } from './config.js';
import { detect } from './detect.js';
import type { Compaction, RunEnd, ToolCall, ToolEvent, ToolOutcome } from './events.js';
import { actionOf, hashArgs, hashOutcome, type OutcomeHash } from './hashing.js';
import {
  DETECTORS, NO_EFFECT, appendRecord, attachOutcome, initialRunState, noteWarning, toolRecord,
  type Effect, type RunState, type Verdict,
} from './state.js';

export type Resolve = (agentId: string | undefined) => ResolvedLoopDetection;

export function evolveRun(state: RunState, event: ToolEvent, resolve: Resolve, ttlMs: number): RunState {
  const live = state.lastTs !== null && event.ts - state.lastTs > ttlMs ? initialRunState : state;
  if (event.eventId !== undefined && Object.hasOwn(live.seen, event.eventId)) return redelivered(live, event);
  const agentId = live.agentId ?? event.agentId ?? null;
  const cfg = resolve(agentId ?? undefined);
  const base: RunState = { ...live, agentId, lastTs: event.ts, effect: NO_EFFECT };
  switch (event.type) {
    case 'tool_call': return remember(onCall(base, event, cfg), event, true);
    case 'tool_outcome': return remember(onOutcome(base, event, cfg), event, false);
    case 'compaction': return remember(onCompaction(base, event, cfg), event, false);
    case 'run_end': return onRunEnd(event);
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

/** A repeated eventId changes nothing; a repeated call gets its original verdict again. */
function redelivered(state: RunState, event: ToolEvent): RunState {
  const verdict = event.type === 'tool_call' ? state.seen[event.eventId!] : null;
  const effect: Effect = verdict ? { kind: 'verdict', verdict } : NO_EFFECT;
  return state.effect === effect ? state : { ...state, effect };
}

function remember(state: RunState, event: ToolEvent, isCall: boolean): RunState {
  if (event.eventId === undefined) return state;
  const verdict = isCall && state.effect.kind === 'verdict' ? state.effect.verdict : null;
  return { ...state, seen: { ...state.seen, [event.eventId]: verdict } };
}

const argsHashOf = (e: ToolCall | ToolOutcome): string => e.argsHash ?? hashArgs(e.toolName, e.args);

const ALLOW: Verdict = { decision: 'allow' };

function onCall(state: RunState, e: ToolCall, cfg: ResolvedLoopDetection): RunState {
  if (state.aborted !== null) {
    const verdict: Verdict = { decision: 'block', detector: DETECTORS.compactionLoopPersisted, level: 'critical', count: state.aborted.count, notify: true };
    return { ...state, effect: { kind: 'verdict', verdict } };
  }
  const argsHash = argsHashOf(e);
  let verdict: Verdict = ALLOW;
  let warnings = state.warnings;
  if (cfg.enabled === true) {
    const found = detect(state.history, { toolName: e.toolName, argsHash, action: actionOf(e.args, e.action) }, cfg);
    if (found?.decision === 'block') {
      verdict = { decision: 'block', detector: found.detector, level: 'critical', count: found.count, notify: true, pairedToolName: found.pairedToolName };
    } else if (found?.decision === 'warn') {
      const noted = noteWarning(warnings, found.warningKey, found.count);
      warnings = noted.warnings;
      verdict = { decision: 'warn', detector: found.detector, level: 'warning', count: found.count, notify: noted.notify, pairedToolName: found.pairedToolName };
    }
  }
  const record = verdict.decision !== 'block' && cfg.enabled !== false;
  const history = record ? appendRecord(state.history, toolRecord(e.toolName, argsHash, e.toolCallId, undefined, undefined), cfg.historySize) : state.history;
  return { ...state, history, warnings, effect: { kind: 'verdict', verdict } };
}

function outcomeHash(e: ToolOutcome): OutcomeHash | undefined {
  if (e.resultHash !== undefined) return e.unknownToolName !== undefined ? { resultHash: e.resultHash, unknownToolName: e.unknownToolName } : { resultHash: e.resultHash };
  return hashOutcome({ toolName: e.toolName, args: e.args, action: e.action, result: e.result, error: e.error });
}

function onOutcome(state: RunState, e: ToolOutcome, cfg: ResolvedLoopDetection): RunState {
  if (cfg.enabled === false) return state;
  const hashed = outcomeHash(e);
  if (hashed === undefined) return state;
  const argsHash = argsHashOf(e);
  const history = attachOutcome(state.history, toolRecord(e.toolName, argsHash, e.toolCallId, hashed.resultHash, hashed.unknownToolName), cfg.historySize);
  const guard = state.guard;
  if (guard === null || guard.remaining <= 0) return { ...state, history };
  const triple = `${e.toolName}\u0000${argsHash}\u0000${hashed.resultHash}`;
  const window = [...guard.window, triple];
  const count = window.reduce((n, t) => (t === triple ? n + 1 : n), 0);
  const remaining = guard.remaining - 1;
  const nextGuard = remaining > 0 ? { remaining, window } : null;
  if (count >= cfg.postCompactionGuard.windowSize) {
    return { ...state, history, guard: nextGuard, aborted: { count, toolName: e.toolName }, effect: { kind: 'abort', count, toolName: e.toolName } };
  }
  return { ...state, history, guard: nextGuard };
}

function onCompaction(state: RunState, _e: Compaction, cfg: ResolvedLoopDetection): RunState {
  if (cfg.enabled === false) return state;
  return { ...state, guard: { remaining: cfg.postCompactionGuard.windowSize, window: [] } };
}

function onRunEnd(_e: RunEnd): RunState {
  return initialRunState;
}
