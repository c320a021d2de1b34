// Folding one tool event and its verdict into a run's state (docs/behaviour.md §2.3, §2.6–§2.8).
import { rememberId } from '../kernel/idMemory.js';
import type { RunConfig } from './config.js';
import { effectiveOutcome, guardAfter, guardEntryOf, liveState, type Resolve, type RunVerdict } from './decide.js';
import type { ToolCall, ToolEvent, ToolOutcome } from './events.js';
import { addBlock, appendRecord, attachOutcome, DETECTORS, initialRunState, noteWarning, runState, seenKey, toolRecord, type RunState, type Verdict } from './state.js';

export function evolveRun(state: RunState, event: ToolEvent, verdict: RunVerdict, resolve: Resolve, ttlMs: number): RunState {
  if (verdict.kind === 'repeat') return state;
  const live = liveState(state, event.ts, ttlMs);
  const agentId = live.agentId ?? event.agentId ?? null;
  const cfg = resolve(agentId ?? undefined);
  const base = runState(event.ts, agentId, live.history, live.guard, live.aborted, live.blocked, live.warnings, live.seen);
  let next: RunState;
  switch (event.type) {
    case 'tool_call':
      next = verdict.kind === 'call' ? onCall(base, event, verdict, cfg) : base;
      break;
    case 'tool_outcome':
      next = onOutcome(base, event, verdict, cfg);
      break;
    case 'compaction':
      next = cfg.enabled === false ? base : withGuard(base, { remaining: cfg.postCompactionGuard.windowSize, window: [] });
      break;
    case 'run_end':
      // The run's state goes; its event ids stay until the run key is idle for the TTL.
      next = runState(event.ts, null, initialRunState.history, null, null, null, initialRunState.warnings, base.seen);
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
  const s = state;
  return runState(s.lastTs, s.agentId, s.history, s.guard, s.aborted, s.blocked, s.warnings, rememberId(s.seen, seenKey(event.type, event.eventId), answer));
}

function onCall(state: RunState, e: ToolCall, verdict: Extract<RunVerdict, { kind: 'call' }>, cfg: RunConfig): RunState {
  const v = verdict.verdict;
  const warnings = verdict.warningKey !== undefined && v.decision === 'warn' ? noteWarning(state.warnings, verdict.warningKey, v.count) : state.warnings;
  const escalated = escalate(state, e, verdict);
  const x = escalated;
  const next = warnings === state.warnings && escalated === state ? state : runState(x.lastTs, x.agentId, x.history, x.guard, x.aborted, x.blocked, warnings, x.seen);
  // Blocked calls are never recorded; nor exempt ones, nor anything while detection is explicitly off.
  if (v.decision === 'block' || !verdict.record || cfg.enabled === false) return next;
  const history = appendRecord(next.history, toolRecord(e.toolName, e.argsHash, e.toolCallId, undefined, undefined, e.ts), cfg.historySize);
  return withHistory(next, history);
}

/** Counts a §2.5 block, and aborts the run when it escalates (§4.2). */
function escalate(state: RunState, e: ToolCall, verdict: Extract<RunVerdict, { kind: 'call' }>): RunState {
  if (!verdict.counted) return state;
  const blocked = addBlock(state.blocked, e.toolCallId, e.ts);
  const x = verdict.escalation;
  const s = state;
  if (x === undefined) return runState(s.lastTs, s.agentId, s.history, s.guard, s.aborted, blocked, s.warnings, s.seen);
  const aborted = { count: x.count, toolName: e.toolName, detector: DETECTORS.blockEscalation, evidence: x.evidence };
  return runState(s.lastTs, s.agentId, s.history, s.guard, aborted, blocked, s.warnings, s.seen);
}

function onOutcome(state: RunState, e: ToolOutcome, verdict: RunVerdict, cfg: RunConfig): RunState {
  const outcome = effectiveOutcome(e, cfg);
  if (cfg.enabled === false || outcome === undefined) return state;
  const { resultHash, unknownToolName } = outcome;
  const history = attachOutcome(state.history, toolRecord(e.toolName, e.argsHash, e.toolCallId, resultHash, unknownToolName, e.ts), cfg.historySize);
  if (state.guard === null) return withHistory(state, history);
  const { guard } = guardAfter(state.guard, guardEntryOf(e, resultHash));
  const aborted =
    verdict.kind === 'abort' ? { count: verdict.count, toolName: verdict.toolName, detector: DETECTORS.compactionLoopPersisted, evidence: verdict.evidence } : state.aborted;
  const s = state;
  return runState(s.lastTs, s.agentId, history, guard, aborted, s.blocked, s.warnings, s.seen);
}

const withHistory = (s: RunState, history: RunState['history']): RunState => runState(s.lastTs, s.agentId, history, s.guard, s.aborted, s.blocked, s.warnings, s.seen);
const withGuard = (s: RunState, guard: RunState['guard']): RunState => runState(s.lastTs, s.agentId, s.history, guard, s.aborted, s.blocked, s.warnings, s.seen);
