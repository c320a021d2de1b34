// Folding one tool event and its verdict into a run's state (docs/behaviour.md §2.3, §2.6–§2.8).
import { rememberId } from '../kernel/idMemory.js';
import type { RunConfig } from './config.js';
import { effectiveOutcome, guardAfter, guardEntryOf, liveState, type Resolve, type RunVerdict } from './decide.js';
import type { ToolCall, ToolEvent, ToolOutcome } from './events.js';
import { addBlock, addSpent, appendRecord, attachOutcome, callRecord, DETECTORS, initialRunState, noteWarning, runState, seenKey, toolRecord, type RunState } from './state.js';
import { evolveEarly } from './early/evolve.js';
import { evolveOpenclaw } from './openclaw/evolve.js';

// Each event's next state is built once, as one `runState` with every field worked out first:
// this runs for every event, and every state it builds lives until the run's next event.
/** `scope`: as for decideRun. */
export function evolveRun(state: RunState, event: ToolEvent, verdict: RunVerdict, resolve: Resolve, ttlMs: number, scope?: string): RunState {
  if (verdict.kind === 'repeat') return state;
  const live = liveState(state, event.ts, ttlMs);
  const agentId = live.agentId ?? event.agentId ?? null;
  const cfg = resolve(agentId ?? undefined);
  const seen = event.eventId === undefined ? live.seen : rememberId(live.seen, seenKey(event.type, event.eventId, scope), verdict.kind === 'call' ? verdict.verdict : null);
  if (cfg.profile === 'openclaw') return evolveOpenclaw(live, event, verdict, cfg, agentId, seen, scope);
  if (cfg.profile === 'early') return evolveEarly(live, event, verdict, cfg, agentId, seen);
  const s = live;
  switch (event.type) {
    case 'tool_call':
      return verdict.kind === 'call'
        ? onCall(live, event, verdict, cfg, agentId, seen)
        : runState(event.ts, agentId, s.history, s.guard, s.aborted, s.blocked, s.spent, s.warnings, seen, s.profile);
    case 'tool_outcome':
      return onOutcome(live, event, verdict, cfg, agentId, seen);
    case 'compaction': {
      const guard = cfg.enabled === false ? s.guard : { remaining: cfg.postCompactionGuard.windowSize, window: [] };
      return runState(event.ts, agentId, s.history, guard, s.aborted, s.blocked, s.spent, s.warnings, seen, s.profile);
    }
    case 'run_end':
      // The run's state goes, its budgets with it; its event ids stay until the run key is idle for the TTL.
      return runState(event.ts, null, initialRunState.history, null, null, null, null, initialRunState.warnings, seen, null);
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

function onCall(s: RunState, e: ToolCall, verdict: Extract<RunVerdict, { kind: 'call' }>, cfg: RunConfig, agentId: string | null, seen: RunState['seen']): RunState {
  const v = verdict.verdict;
  const warnings = verdict.warningKey !== undefined && v.decision === 'warn' ? noteWarning(s.warnings, verdict.warningKey, v.count) : s.warnings;
  // A block by §2.5 or a budget is counted, and aborts the run when it escalates (§4.2).
  let blocked = s.blocked;
  let aborted = s.aborted;
  if (verdict.counted) {
    blocked = addBlock(s.blocked, e.toolCallId, e.ts);
    const x = verdict.escalation;
    if (x !== undefined) aborted = { count: x.count, toolName: e.toolName, detector: x.detector, evidence: x.evidence };
  }
  // Blocked calls are never recorded; nor exempt ones, nor anything while detection is explicitly off.
  const unrecorded = v.decision === 'block' || !verdict.record || cfg.enabled === false;
  const history = unrecorded ? s.history : appendRecord(s.history, callRecord(s.history, e.toolName, e.argsHash, e.toolCallId, e.ts), cfg.historySize);
  // An allowed or warned call that is not exempt is spent (§5), whatever loop detection says.
  const spent = v.decision === 'block' || !verdict.record ? s.spent : addSpent(s.spent, cfg.policy.tracking.runs, verdict.spendKey, e.toolCallId, e.ts);
  return runState(e.ts, agentId, history, s.guard, aborted, blocked, spent, warnings, seen, s.profile);
}

function onOutcome(s: RunState, e: ToolOutcome, verdict: RunVerdict, cfg: RunConfig, agentId: string | null, seen: RunState['seen']): RunState {
  const outcome = effectiveOutcome(e, cfg);
  if (cfg.enabled === false || outcome === undefined) return runState(e.ts, agentId, s.history, s.guard, s.aborted, s.blocked, s.spent, s.warnings, seen, s.profile);
  const { resultHash, unknownToolName } = outcome;
  const history = attachOutcome(s.history, toolRecord(e.toolName, e.argsHash, e.toolCallId, resultHash, unknownToolName, e.ts), cfg.historySize);
  if (s.guard === null) return runState(e.ts, agentId, history, null, s.aborted, s.blocked, s.spent, s.warnings, seen, s.profile);
  const { guard } = guardAfter(s.guard, guardEntryOf(e, resultHash));
  const aborted =
    verdict.kind === 'abort' ? { count: verdict.count, toolName: verdict.toolName, detector: DETECTORS.compactionLoopPersisted, evidence: verdict.evidence } : s.aborted;
  return runState(e.ts, agentId, history, guard, aborted, s.blocked, s.spent, s.warnings, seen, s.profile);
}
