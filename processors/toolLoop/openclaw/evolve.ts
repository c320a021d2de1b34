// Folding a tool event into a run that follows the openclaw profile (docs/behaviour.md §6).
// `history` here is the run's own, or its session's when tool events are keyed by session
// (then `scope` is the run's key, and records carry it).
import type { RunConfig } from '../config.js';
import { guardAfter, type RunVerdict } from '../decide.js';
import type { ToolCall, ToolEvent, ToolOutcome } from '../events.js';
import { addBlock, addSpent, MAX_TURN_CALLS, noteWarning, PROFILE_RUN_START, runState, type ProfileRun, type RunState } from '../state.js';
import { profileGuardEntry, profileIdentity, profileOutcome } from './decide.js';
import { appendTo, attachTo, continuesTurn, profileRecord, rewriteTurn, type History, type ProfileRecord } from './records.js';

export function evolveOpenclaw(
  state: RunState,
  event: ToolEvent,
  verdict: RunVerdict,
  cfg: RunConfig,
  agentId: string | null,
  seen: RunState['seen'],
  scope: string | undefined,
): RunState {
  // A run of the profile carries its profile record from its first event on (the changelog keeps its records' facts there).
  const s =
    state.profile !== null
      ? state
      : runState(state.lastTs, state.agentId, state.history, state.guard, state.aborted, state.blocked, state.spent, state.warnings, state.seen, PROFILE_RUN_START);
  switch (event.type) {
    case 'tool_call':
      return verdict.kind === 'call'
        ? onCall(s, event, verdict, cfg, agentId, seen, scope)
        : runState(event.ts, agentId, s.history, s.guard, s.aborted, s.blocked, s.spent, s.warnings, seen, s.profile);
    case 'tool_outcome':
      return onOutcome(s, event, verdict, cfg, agentId, seen, scope);
    case 'compaction': {
      const guard = cfg.enabled === false ? s.guard : { remaining: cfg.postCompactionGuard.windowSize, window: [] };
      return runState(event.ts, agentId, s.history, guard, s.aborted, s.blocked, s.spent, s.warnings, seen, s.profile);
    }
    case 'run_end':
      // The run's state goes; in a session's history its records stay, to age out as the host's do.
      return runState(event.ts, null, scope === undefined ? [] : s.history, null, null, null, null, [], seen, null);
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

function onCall(
  s: RunState,
  e: ToolCall,
  verdict: Extract<RunVerdict, { kind: 'call' }>,
  cfg: RunConfig,
  agentId: string | null,
  seen: RunState['seen'],
  scope: string | undefined,
): RunState {
  const v = verdict.verdict;
  const x = verdict.openclaw!;
  const warnings = verdict.warningKey !== undefined && v.decision === 'warn' ? noteWarning(s.warnings, verdict.warningKey, x.bucket ?? 0) : s.warnings;
  let blocked = s.blocked;
  let aborted = s.aborted;
  if (verdict.counted) {
    blocked = addBlock(s.blocked, e.toolCallId, e.ts);
    const esc = verdict.escalation;
    if (esc !== undefined) aborted = { count: esc.count, toolName: e.toolName, detector: esc.detector, evidence: esc.evidence };
  }
  const history = callHistory(s.history as History, e, x, cfg.historySize, scope);
  const spent = v.decision === 'block' || !verdict.record ? s.spent : addSpent(s.spent, cfg.policy.tracking.runs, verdict.spendKey, e.toolCallId, e.ts);
  return runState(e.ts, agentId, history, s.guard, aborted, blocked, spent, warnings, seen, profileAfter(s.profile, e, x));
}

function callHistory(h: History, e: ToolCall, x: NonNullable<Extract<RunVerdict, { kind: 'call' }>['openclaw']>, size: number, scope: string | undefined): History {
  const record = (kind: 'veto' | undefined, turnId: string | undefined, toolCallId = e.toolCallId, ts = e.ts): ProfileRecord =>
    profileRecord(x.toolName, x.argsHash, toolCallId, undefined, undefined, ts, scope, kind, undefined, undefined, turnId);
  const turn = x.blocksTurn;
  if (turn !== undefined) {
    // The turn's earlier calls run no more: with the trigger's arguments they become vetoes, the rest leave nothing.
    const vetoes: ProfileRecord[] = [];
    if (turn.vetoes) {
      for (const r of h)
        if (r.run === scope && r.turnId === turn.turnId && r.toolName === turn.toolName && r.argsHash === turn.argsHash) vetoes.push(record('veto', undefined, r.toolCallId, r.ts));
      vetoes.push(record('veto', undefined));
    }
    return rewriteTurn(h, scope, turn.turnId, vetoes, size);
  }
  switch (x.record) {
    case 'call':
      return appendTo(h, record(undefined, e.turnId), size, continuesTurn(h, scope, e.turnId));
    case 'veto':
      return appendTo(h, record('veto', undefined), size, false);
    case 'none':
      return h;
    default: {
      const unreachable: never = x.record;
      return unreachable;
    }
  }
}

function profileAfter(p: ProfileRun | null, e: ToolCall, x: NonNullable<Extract<RunVerdict, { kind: 'call' }>['openclaw']>): ProfileRun | null {
  if (x.blocksTurn !== undefined) return { criticalSeen: p?.criticalSeen === true || x.critical, turn: x.blocksTurn };
  if (x.inBlockedTurn && p !== null && p.turn !== null && e.toolCallId !== undefined) {
    const calls = [...p.turn.calls.slice(Math.max(0, p.turn.calls.length + 1 - MAX_TURN_CALLS)), e.toolCallId];
    return { criticalSeen: p.criticalSeen, turn: { ...p.turn, calls } };
  }
  return p;
}

function onOutcome(s: RunState, e: ToolOutcome, verdict: RunVerdict, cfg: RunConfig, agentId: string | null, seen: RunState['seen'], scope: string | undefined): RunState {
  const id = profileIdentity(e);
  const o = profileOutcome(e, cfg, id.toolName);
  const unchanged = () => runState(e.ts, agentId, s.history, s.guard, s.aborted, s.blocked, s.spent, s.warnings, seen, s.profile);
  if (cfg.enabled === false || o === undefined) return unchanged();
  const h = s.history as History;
  if (o.veto === true || o.resultHash === undefined) {
    // The host's own veto: recorded as one, unless it is the echo of a call this run blocked itself.
    if (
      e.toolCallId === undefined ||
      s.profile?.turn?.calls.includes(e.toolCallId) === true ||
      h.some((r) => r.run === scope && r.toolCallId === e.toolCallId && r.kind === 'veto')
    )
      return unchanged();
    const veto = profileRecord(id.toolName, id.argsHash, e.toolCallId, undefined, undefined, e.ts, scope, 'veto', undefined, undefined, undefined);
    return runState(e.ts, agentId, attachTo(h, veto, cfg.historySize), s.guard, s.aborted, s.blocked, s.spent, s.warnings, seen, s.profile);
  }
  const kind = o.failureIdentityHash !== undefined ? 'terminal-exec-failure' : undefined;
  const record = profileRecord(id.toolName, id.argsHash, e.toolCallId, o.resultHash, o.unknownToolName, e.ts, scope, kind, o.failureIdentityHash, o.noProgress, undefined);
  const history = attachTo(h, record, cfg.historySize);
  if (s.guard === null) return runState(e.ts, agentId, history, null, s.aborted, s.blocked, s.spent, s.warnings, seen, s.profile);
  const { guard } = guardAfter(s.guard, profileGuardEntry(e, id, o.resultHash));
  const aborted =
    verdict.kind === 'abort' ? { count: verdict.count, toolName: verdict.toolName, detector: 'compaction_loop_persisted' as const, evidence: verdict.evidence } : s.aborted;
  return runState(e.ts, agentId, history, guard, aborted, s.blocked, s.spent, s.warnings, seen, s.profile);
}
