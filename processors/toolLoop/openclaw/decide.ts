// What a tool event causes for a run that follows the openclaw profile (docs/behaviour.md §6),
// from the run's state before it. Like decide.ts, it changes nothing: the effect on history
// rides on the verdict, for evolve.ts to fold.
import type { RunConfig } from '../config.js';
import { budgetBlock, spendKey } from '../budgets.js';
import { answer, callThresholds, escalationOf, guardAfter, shadowOf, type Escalation, type OpenclawCallEffect, type RunVerdict } from '../decide.js';
import type { ToolCall, ToolEvent, ToolOutcome } from '../events.js';
import { DETECTORS, evidenceOf, MAX_TURN_CALLS, type BlockedTurn, type GuardEntry, type RunState, type Verdict } from '../state.js';
import { detectOpenclaw } from './detect.js';
import type { OpenclawOutcome } from './hashing.js';
import { profileArgsHash, profileToolName } from './names.js';
import { runView, type History } from './records.js';
import { isExempt } from '../policy.js';

const FOLD: RunVerdict = { kind: 'fold' };
type Acting = Exclude<Verdict, { decision: 'allow' }>;
const ALLOW: Verdict = { decision: 'allow' };
const SHADOW_ALLOW: Verdict = { decision: 'allow', shadow: true };

/** The profile's name of a call's tool and hash of its arguments. */
export function profileIdentity(e: { readonly toolName: string; readonly argsHash: string }): { readonly toolName: string; readonly argsHash: string } {
  const toolName = profileToolName(e.toolName);
  return toolName === e.toolName ? e : { toolName, argsHash: profileArgsHash(e.toolName, toolName, e.argsHash) };
}

/** `scope`: the run's key when the history is its session's; undefined when it is the run's own. */
export function decideOpenclaw(state: RunState, event: ToolEvent, cfg: RunConfig, scope: string | undefined): RunVerdict {
  switch (event.type) {
    case 'tool_call':
      return decideCall(state, event, cfg, scope);
    case 'tool_outcome':
      return decideOutcome(state, event, cfg);
    case 'compaction':
    case 'run_end':
      return FOLD;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

const effect = (
  id: { readonly toolName: string; readonly argsHash: string },
  record: OpenclawCallEffect['record'],
  blocksTurn?: BlockedTurn,
  inBlockedTurn = false,
  critical = false,
  bucket?: number,
): OpenclawCallEffect => ({ toolName: id.toolName, argsHash: id.argsHash, record, blocksTurn, inBlockedTurn, critical, bucket });

function decideCall(state: RunState, e: ToolCall, cfg: RunConfig, scope: string | undefined): RunVerdict {
  const id = profileIdentity(e);
  const shadow = shadowOf(cfg);
  const turn = state.profile?.turn ?? null;
  // A later call of a blocked turn is not run; with the trigger's arguments, it is a veto too.
  if (e.turnId !== undefined && turn !== null && turn.turnId === e.turnId) {
    const veto = turn.vetoes && id.toolName === turn.toolName && id.argsHash === turn.argsHash;
    const { detector, count, pairedToolName, evidence } = turn;
    const verdict: Verdict = { decision: 'block', detector, level: 'critical', count, notify: true, pairedToolName, shadow, evidence, turnBlockedBy: turn.toolCallId ?? '' };
    return answer(verdict, undefined, false, false, undefined, undefined, effect(id, veto ? 'veto' : 'none', undefined, true));
  }
  if (state.aborted !== null) {
    const a = state.aborted;
    return answer(
      { decision: 'block', detector: a.detector, level: 'critical', count: a.count, notify: true, shadow, evidence: a.evidence },
      undefined,
      true,
      false,
      undefined,
      undefined,
      effect(id, 'none'),
    );
  }
  const selected = cfg.policy.selectTool(id.toolName);
  const entry = selected?.[1];
  if (isExempt(entry, e.exempt)) return answer(shadow ? SHADOW_ALLOW : ALLOW, undefined, false, false, undefined, undefined, effect(id, 'none'));
  const thresholds = callThresholds(cfg, entry);
  const view = runView(state.history as History, scope, cfg.historySize, e.turnId);
  const found =
    cfg.enabled === true ? detectOpenclaw(view, { toolName: id.toolName, argsHash: id.argsHash, action: e.action, poll: entry?.poll, turnId: e.turnId }, thresholds) : undefined;
  if (found?.decision === 'block') {
    const { detector, count, pairedToolName, evidence } = found;
    const verdict: Verdict = { decision: 'block', detector, level: 'critical', count, notify: true, pairedToolName, shadow, evidence };
    if (e.turnId === undefined) return answer(verdict, undefined, true, true, escalationOf(state, e, cfg), undefined, effect(id, 'veto'));
    const blocked = blockedTurn(e, id, verdict, true, view);
    const repeated = state.profile?.criticalSeen === true;
    return answer(verdict, undefined, true, true, repeated ? repeatedCritical(e, verdict, cfg) : escalationOf(state, e, cfg), undefined, effect(id, 'veto', blocked, false, true));
  }
  const budget = budgetBlock(state, e.ts, cfg, selected);
  if (budget !== undefined) {
    const { detector, count, evidence } = budget;
    const verdict: Verdict = { decision: 'block', detector, level: 'critical', count, notify: true, shadow, evidence };
    const blocked = e.turnId === undefined ? undefined : blockedTurn(e, id, verdict, false, view);
    return answer(verdict, undefined, true, true, escalationOf(state, e, cfg), undefined, effect(id, 'none', blocked));
  }
  const key = spendKey(cfg, selected);
  const record = cfg.enabled === true ? 'call' : 'none';
  if (found === undefined) return answer(shadow ? SHADOW_ALLOW : ALLOW, undefined, true, false, undefined, key, effect(id, record));
  const { detector, count, pairedToolName, evidence } = found;
  // The host shows a warning when its count reaches a new multiple of the warning threshold, per run and warning key.
  const bucket = Math.floor(count / thresholds.warningThreshold);
  const notify = bucket > (state.warnings.find(([k]) => k === found.warningKey)?.[1] ?? 0);
  return answer(
    { decision: 'warn', detector, level: 'warning', count, notify, pairedToolName, shadow, evidence },
    notify ? found.warningKey : undefined,
    true,
    false,
    undefined,
    key,
    effect(id, record, undefined, false, false, bucket),
  );
}

/** The turn a block blocks: the calls of it so far (this one the newest) and how the rest are answered. */
function blockedTurn(e: ToolCall, id: { toolName: string; argsHash: string }, v: Verdict, vetoes: boolean, view: History): BlockedTurn {
  const calls: string[] = [];
  for (const r of view) if (r.turnId === e.turnId && r.toolCallId !== undefined) calls.push(r.toolCallId);
  if (e.toolCallId !== undefined) calls.push(e.toolCallId);
  const acting = v as Acting;
  return {
    turnId: e.turnId!,
    toolName: id.toolName,
    argsHash: id.argsHash,
    toolCallId: e.toolCallId,
    detector: acting.detector,
    count: acting.count,
    pairedToolName: acting.pairedToolName,
    evidence: acting.evidence,
    vetoes,
    calls: calls.slice(Math.max(0, calls.length - MAX_TURN_CALLS)),
  };
}

/** A second turn blocked for a critical loop ends the run (the host stops it). */
function repeatedCritical(e: ToolCall, v: Verdict, cfg: RunConfig): Escalation {
  const evidence = (v as Acting).evidence ?? evidenceOf([{ toolCallId: e.toolCallId, ts: e.ts }])!;
  return { detector: DETECTORS.criticalLoopRepeated, count: 2, evidence, shadow: shadowOf(cfg) };
}

/**
 * The profile's facts about an outcome, as the run folds them: none for an exempt tool or,
 * when the run's policy says so, a transient failure (as effectiveOutcome).
 */
export function profileOutcome(e: ToolOutcome, cfg: RunConfig, toolName: string): OpenclawOutcome | undefined {
  if (e.openclaw === undefined) return undefined;
  if (e.transient === true && cfg.policy.transientErrors) return undefined;
  return isExempt(cfg.policy.toolEntry(toolName), e.exempt) ? undefined : e.openclaw;
}

export const profileGuardEntry = (e: ToolOutcome, id: { toolName: string; argsHash: string }, resultHash: string): GuardEntry => ({
  triple: `${id.toolName}\u0000${id.argsHash}\u0000${resultHash}`,
  toolCallId: e.toolCallId,
  ts: e.ts,
});

// The post-compaction guard (§2.6) watches outcomes with the profile's hashes; vetoes are not outcomes.
function decideOutcome(state: RunState, e: ToolOutcome, cfg: RunConfig): RunVerdict {
  const id = profileIdentity(e);
  const o = profileOutcome(e, cfg, id.toolName);
  if (cfg.enabled === false || o?.resultHash === undefined || state.guard === null || state.aborted !== null) return FOLD;
  const entry = profileGuardEntry(e, id, o.resultHash);
  const { count } = guardAfter(state.guard, entry);
  if (count < cfg.postCompactionGuard.windowSize) return FOLD;
  const carrying = [...state.guard.window.filter((w) => w.triple === entry.triple), entry];
  return { kind: 'abort', count, toolName: id.toolName, evidence: evidenceOf(carrying), shadow: shadowOf(cfg) };
}
