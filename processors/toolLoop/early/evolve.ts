// Folding a tool event into a run that follows the early preset (docs/behaviour.md §7.4).
import type { RunConfig } from '../config.js';
import { guardAfter, guardEntryOf, type RunVerdict } from '../decide.js';
import { isKnownPoll } from '../detect.js';
import type { ToolCall, ToolEvent, ToolOutcome } from '../events.js';
import { isExempt } from '../policy.js';
import { addBlock, addSpent, argsKeyOf, DETECTORS, runState, type RunState } from '../state.js';
import { guardedHash, identityOf } from './decide.js';
import { appendTo, attachIndex, earlyHistory, earlyRecord, lastProgress, waited, type EarlyRecord, type History } from './records.js';

export function evolveEarly(state: RunState, event: ToolEvent, verdict: RunVerdict, cfg: RunConfig, agentId: string | null, seen: RunState['seen']): RunState {
  const s = state;
  switch (event.type) {
    case 'tool_call':
      return verdict.kind === 'call'
        ? onCall(s, event, verdict, cfg, agentId, seen)
        : runState(event.ts, agentId, s.history, s.guard, s.aborted, s.blocked, s.spent, s.warnings, seen, s.profile);
    case 'tool_outcome':
      return onOutcome(s, event, verdict, cfg, agentId, seen);
    case 'compaction': {
      const guard = cfg.enabled === false ? s.guard : { remaining: cfg.postCompactionGuard.windowSize, window: [] };
      return runState(event.ts, agentId, s.history, guard, s.aborted, s.blocked, s.spent, s.warnings, seen, s.profile);
    }
    case 'run_end':
      return runState(event.ts, null, [], null, null, null, null, [], seen, null);
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

function onCall(s: RunState, e: ToolCall, verdict: Extract<RunVerdict, { kind: 'call' }>, cfg: RunConfig, agentId: string | null, seen: RunState['seen']): RunState {
  const v = verdict.verdict;
  const x = verdict.early!;
  let blocked = s.blocked;
  let aborted = s.aborted;
  if (verdict.counted) {
    blocked = addBlock(s.blocked, e.toolCallId, e.ts);
    const esc = verdict.escalation;
    if (esc !== undefined) aborted = { count: esc.count, toolName: e.toolName, detector: esc.detector, evidence: esc.evidence };
  }
  const allowed = v.decision !== 'block';
  const h = earlyHistory(s.history);
  const history =
    allowed && x.record !== 'none'
      ? appendTo(
          h,
          earlyRecord(e.toolName, x.identity, e.toolCallId, undefined, undefined, e.ts, undefined, e.turnId, x.poll, x.record === 'duplicate', false, false),
          cfg.historySize,
        )
      : s.history;
  // A duplicate counts once, as the call it repeats: it spends nothing (§5).
  const spent = !allowed || !verdict.record || x.record === 'duplicate' ? s.spent : addSpent(s.spent, cfg.policy.tracking.runs, verdict.spendKey, e.toolCallId, e.ts);
  return runState(e.ts, agentId, history, s.guard, aborted, blocked, spent, s.warnings, seen, s.profile);
}

function onOutcome(s: RunState, e: ToolOutcome, verdict: RunVerdict, cfg: RunConfig, agentId: string | null, seen: RunState['seen']): RunState {
  const history = cfg.enabled === true && !isExempt(cfg.policy.toolEntry(e.toolName), e.exempt) ? outcomeHistory(earlyHistory(s.history), e, cfg) : s.history;
  const resultHash = cfg.enabled === false || s.guard === null ? undefined : guardedHash(s, e, cfg);
  if (resultHash === undefined) return runState(e.ts, agentId, history, s.guard, s.aborted, s.blocked, s.spent, s.warnings, seen, s.profile);
  const { guard } = guardAfter(s.guard!, guardEntryOf(e, resultHash));
  const aborted =
    verdict.kind === 'abort' ? { count: verdict.count, toolName: verdict.toolName, detector: DETECTORS.compactionLoopPersisted, evidence: verdict.evidence } : s.aborted;
  return runState(e.ts, agentId, history, guard, aborted, s.blocked, s.spent, s.warnings, seen, s.profile);
}

/**
 * The history with an outcome folded in: on the newest waiting record of its call (its
 * toolCallId, when it has one) — a duplicate's only as done; else, when it has something to
 * record, as a record of its own. A progress hash is stale when the newest earlier record of the
 * identity with one has the same, and the call did not wait after it (§7.4).
 */
function outcomeHistory(h: History, e: ToolOutcome, cfg: RunConfig): History {
  const identity = identityOf(e);
  const argsKey = argsKeyOf(identity);
  const progress = e.progressHash ?? e.outcome?.resultHash;
  const unknown = e.outcome?.unknownToolName;
  const transient = e.transient === true && unknown === undefined;
  const at = attachIndex(h, e.toolName, argsKey, identity, e.toolCallId);
  const stale = (r: { readonly ts: number; readonly poll: boolean }, before: number): boolean => {
    if (progress === undefined || unknown !== undefined || transient) return false;
    const p = lastProgress(h, before, e.toolName, argsKey, identity);
    return p >= 0 && h[p]!.resultHash === progress && !waited(h[p]!, r.ts, r.poll);
  };
  if (at < 0) {
    if (transient || (progress === undefined && unknown === undefined)) return h;
    const poll = cfg.policy.toolEntry(e.toolName)?.poll ?? isKnownPoll(e.toolName, undefined);
    const own = { ts: e.ts, poll };
    const record = earlyRecord(
      e.toolName,
      identity,
      e.toolCallId,
      unknown === undefined ? progress : undefined,
      unknown,
      e.ts,
      e.ts,
      undefined,
      poll,
      false,
      false,
      stale(own, h.length),
      argsKey,
    );
    return appendTo(h, record, cfg.historySize);
  }
  const r = h[at]!;
  let next: EarlyRecord;
  if (r.duplicate) next = with_(r, r.resultHash, r.unknownToolName, e.ts, false, false);
  else if (transient) next = with_(r, undefined, undefined, e.ts, true, false);
  else if (unknown !== undefined) next = with_(r, undefined, unknown, e.ts, false, false);
  else if (progress !== undefined) next = with_(r, progress, undefined, e.ts, false, stale(r, at));
  else return h;
  const out = h.slice();
  out[at] = next;
  return out;
}

const with_ = (r: EarlyRecord, progressHash: string | undefined, unknownToolName: string | undefined, outcomeTs: number, transient: boolean, stale: boolean): EarlyRecord =>
  earlyRecord(r.toolName, r.argsHash, r.toolCallId, progressHash, unknownToolName, r.ts, outcomeTs, r.turnId, r.poll, r.duplicate, transient, stale, r.argsKey);
