// Folding one tool event and its verdict into a run's state (docs/behaviour.md §2.3, §2.6–§2.8).
import { rememberId } from '../kernel/idMemory.js';
import type { ResolvedLoopDetection } from './config.js';
import { guardAfter, liveState, tripleOf, type Resolve, type RunVerdict } from './decide.js';
import type { ToolCall, ToolEvent, ToolOutcome } from './events.js';
import { appendRecord, attachOutcome, initialRunState, noteWarning, seenKey, toolRecord, type RunState, type Verdict } from './state.js';

export function evolveRun(state: RunState, event: ToolEvent, verdict: RunVerdict, resolve: Resolve, ttlMs: number): RunState {
  if (verdict.kind === 'repeat') return state;
  const live = liveState(state, event.ts, ttlMs);
  const agentId = live.agentId ?? event.agentId ?? null;
  const cfg = resolve(agentId ?? undefined);
  const base: RunState = { ...live, agentId, lastTs: event.ts };
  let next: RunState;
  switch (event.type) {
    case 'tool_call':
      next = verdict.kind === 'call' ? onCall(base, event, verdict, cfg) : base;
      break;
    case 'tool_outcome':
      next = onOutcome(base, event, verdict, cfg);
      break;
    case 'compaction':
      next = cfg.enabled === false ? base : { ...base, guard: { remaining: cfg.postCompactionGuard.windowSize, window: [] } };
      break;
    case 'run_end':
      // The run's state goes; its event ids stay until the run key is idle for the TTL.
      next = { ...initialRunState, lastTs: event.ts, seen: base.seen };
      break;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
  return remember(next, event, verdict);
}

function remember(state: RunState, event: ToolEvent, verdict: RunVerdict): RunState {
  if (event.eventId === undefined) return state;
  const answer: Verdict | null = verdict.kind === 'call' ? verdict.verdict : null;
  return { ...state, seen: rememberId(state.seen, seenKey(event.type, event.eventId), answer) };
}

function onCall(state: RunState, e: ToolCall, verdict: Extract<RunVerdict, { kind: 'call' }>, cfg: ResolvedLoopDetection): RunState {
  const v = verdict.verdict;
  const warnings = verdict.warningKey !== undefined && v.decision === 'warn' ? noteWarning(state.warnings, verdict.warningKey, v.count) : state.warnings;
  // Blocked calls are never recorded; nor is anything while detection is explicitly off.
  if (v.decision === 'block' || cfg.enabled === false) return warnings === state.warnings ? state : { ...state, warnings };
  const history = appendRecord(state.history, toolRecord(e.toolName, e.argsHash, e.toolCallId, undefined, undefined), cfg.historySize);
  return { ...state, history, warnings };
}

function onOutcome(state: RunState, e: ToolOutcome, verdict: RunVerdict, cfg: ResolvedLoopDetection): RunState {
  if (cfg.enabled === false || e.outcome === undefined) return state;
  const { resultHash, unknownToolName } = e.outcome;
  const history = attachOutcome(state.history, toolRecord(e.toolName, e.argsHash, e.toolCallId, resultHash, unknownToolName), cfg.historySize);
  if (state.guard === null) return { ...state, history };
  const { guard } = guardAfter(state.guard, tripleOf(e, resultHash));
  const aborted = verdict.kind === 'abort' ? { count: verdict.count, toolName: verdict.toolName } : state.aborted;
  return { ...state, history, guard, aborted };
}
