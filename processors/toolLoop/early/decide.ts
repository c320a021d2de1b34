// What a tool event causes for a run that follows the early preset (docs/behaviour.md §7), from
// the run's state before it. Like decide.ts, it changes nothing: the record a call leaves rides
// on the verdict, for evolve.ts to fold.
import type { RunConfig } from '../config.js';
import { budgetBlock, spendKey } from '../budgets.js';
import { answer, escalationOf, guardAfter, guardEntryOf, shadowOf, type EarlyCallEffect, type RunVerdict } from '../decide.js';
import { isKnownPoll } from '../detect.js';
import type { ToolCall, ToolEvent, ToolOutcome } from '../events.js';
import { isExempt } from '../policy.js';
import { argsKeyOf, evidenceOf, type RunState, type Verdict } from '../state.js';
import { detectEarly } from './detect.js';
import { attachIndex, earlyHistory, waitingInTurn } from './records.js';

const FOLD: RunVerdict = { kind: 'fold' };
const ALLOW: Verdict = { decision: 'allow' };
const SHADOW_ALLOW: Verdict = { decision: 'allow', shadow: true };

export function decideEarly(state: RunState, event: ToolEvent, cfg: RunConfig): RunVerdict {
  switch (event.type) {
    case 'tool_call':
      return decideCall(state, event, cfg);
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

/** A call's identity (§7.2): as parsed for the preset, else its argument hash. */
export const identityOf = (e: ToolCall | ToolOutcome): string => e.identity ?? e.argsHash;

const effect = (identity: string, poll: boolean, record: EarlyCallEffect['record']): EarlyCallEffect => ({ identity, poll, record });

// The preset's block, then the budgets (§5), then allow. No warnings.
function decideCall(state: RunState, e: ToolCall, cfg: RunConfig): RunVerdict {
  const shadow = shadowOf(cfg);
  const allow = shadow ? SHADOW_ALLOW : ALLOW;
  const identity = identityOf(e);
  const selected = cfg.policy.selectTool(e.toolName);
  const entry = selected?.[1];
  const poll = entry?.poll ?? isKnownPoll(e.toolName, e.action);
  if (state.aborted !== null) {
    const a = state.aborted;
    const verdict: Verdict = { decision: 'block', detector: a.detector, level: 'critical', count: a.count, notify: true, shadow, evidence: a.evidence };
    return answer(verdict, undefined, true, false, undefined, undefined, undefined, effect(identity, poll, 'none'));
  }
  if (isExempt(entry, e.exempt)) return answer(allow, undefined, false, false, undefined, undefined, undefined, effect(identity, poll, 'none'));
  const on = cfg.enabled === true;
  if (on) {
    const h = earlyHistory(state.history);
    // Identical calls the model asked for in one turn count once: answered as the first was (allowed, or it would not be waiting).
    if (e.turnId !== undefined && waitingInTurn(h, e.turnId, e.toolName, argsKeyOf(identity), identity) !== undefined) {
      return answer(allow, undefined, true, false, undefined, undefined, undefined, effect(identity, poll, 'duplicate'));
    }
    const found = detectEarly(h, { toolName: e.toolName, identity, turnId: e.turnId, poll, ts: e.ts });
    if (found !== undefined) {
      const { detector, count, evidence } = found;
      const verdict: Verdict = { decision: 'block', detector, level: 'critical', count, notify: true, shadow, evidence };
      return answer(verdict, undefined, true, true, escalationOf(state, e, cfg), undefined, undefined, effect(identity, poll, 'none'));
    }
  }
  const budget = budgetBlock(state, e.ts, cfg, selected);
  if (budget !== undefined) {
    const { detector, count, evidence } = budget;
    const verdict: Verdict = { decision: 'block', detector, level: 'critical', count, notify: true, shadow, evidence };
    return answer(verdict, undefined, true, true, escalationOf(state, e, cfg), undefined, undefined, effect(identity, poll, 'none'));
  }
  return answer(allow, undefined, true, false, undefined, spendKey(cfg, selected), undefined, effect(identity, poll, on ? 'call' : 'none'));
}

/**
 * The §2.2 hash an outcome is folded with by the post-compaction guard (§2.6) under the preset:
 * none for an exempt call, a transient failure (§4.4 is always on under the preset), or the
 * outcome of a duplicate (it counts once, as its original).
 */
export function guardedHash(state: RunState, e: ToolOutcome, cfg: RunConfig): string | undefined {
  if (e.outcome === undefined || e.transient === true || isExempt(cfg.policy.toolEntry(e.toolName), e.exempt)) return undefined;
  const h = earlyHistory(state.history);
  const identity = identityOf(e);
  const at = attachIndex(h, e.toolName, argsKeyOf(identity), identity, e.toolCallId);
  return at >= 0 && h[at]!.duplicate ? undefined : e.outcome.resultHash;
}

function decideOutcome(state: RunState, e: ToolOutcome, cfg: RunConfig): RunVerdict {
  if (cfg.enabled === false || state.guard === null || state.aborted !== null) return FOLD;
  const resultHash = guardedHash(state, e, cfg);
  if (resultHash === undefined) return FOLD;
  const entry = guardEntryOf(e, resultHash);
  const { count } = guardAfter(state.guard, entry);
  if (count < cfg.postCompactionGuard.windowSize) return FOLD;
  const carrying = [...state.guard.window.filter((w) => w.triple === entry.triple), entry];
  return { kind: 'abort', count, toolName: e.toolName, evidence: evidenceOf(carrying), shadow: shadowOf(cfg) };
}
