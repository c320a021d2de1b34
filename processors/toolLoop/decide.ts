// What a tool event causes (docs/behaviour.md §2.5–§2.8, §4), worked out from the run's state
// before it. Nothing here changes state: `evolve` folds the event and this verdict afterwards.
import type { ResolvedLoopDetection, RunConfig } from './config.js';
import { budgetBlock, spendKey } from './budgets.js';
import { detect } from './detect.js';
import type { ToolCall, ToolEvent, ToolOutcome } from './events.js';
import { isExempt, type ToolEntry } from './policy.js';
import { addBlock, evidenceOf, initialRunState, shouldNotify, type CompactionGuard, type Evidence, type GuardEntry, type RunState, type Verdict } from './state.js';
import type { OutcomeHash } from './hashRules.js';
import { DETECTORS, type BlockedTurn } from './state.js';

export type Resolve = (agentId: string | undefined) => RunConfig;

export type RunVerdict =
  /** An event that only folds (compaction, run_end, an outcome that does not abort). */
  | { readonly kind: 'fold' }
  /** A redelivered event: no effect on state; a call gets its original verdict again. */
  | { readonly kind: 'repeat'; readonly verdict: Verdict | null }
  | {
      readonly kind: 'call';
      readonly verdict: Verdict;
      readonly warningKey: string | undefined;
      /** False for an exempt tool (§4.3): allowed, not recorded, and spends nothing (§5). */
      readonly record: boolean;
      /** A block by §2.5 rules or a budget: counted for escalation (§4.2). */
      readonly counted: boolean;
      /** The tool key an allowed or warned call is counted on for its tool budget (§5), if any. */
      readonly spendKey: string | undefined;
      /** Set when this block ends the run (§4.2, §6): a run_abort follows the decision. */
      readonly escalation: Escalation | undefined;
      /** What the openclaw profile folds for the call besides (§6); undefined for §2's runs. */
      readonly openclaw?: OpenclawCallEffect | undefined;
      /** What the early preset folds for the call (§7); undefined for other runs. */
      readonly early?: EarlyCallEffect | undefined;
    }
  | { readonly kind: 'abort'; readonly count: number; readonly toolName: string; readonly evidence: Evidence | undefined; readonly shadow: true | undefined };

/** What a call of a run that follows the openclaw profile folds besides §2's effects (§6). */
export interface OpenclawCallEffect {
  /** The profile's name of the tool and hash of the arguments. */
  readonly toolName: string;
  readonly argsHash: string;
  /** The record the call leaves: its own (allowed or warned), a veto (blocked for a loop), or none. */
  readonly record: 'call' | 'veto' | 'none';
  /** Set on the block that blocks its turn: the turn, as later calls of it will be answered. */
  readonly blocksTurn: BlockedTurn | undefined;
  /** A call of a blocked turn (after the block): it joins the turn's calls. */
  readonly inBlockedTurn: boolean;
  /** A turn was blocked for a critical loop by this call. */
  readonly critical: boolean;
  /** The notification bucket a warning reached (remembered under its warning key when it notifies). */
  readonly bucket: number | undefined;
}

/** What a call of a run that follows the early preset folds (§7). */
export interface EarlyCallEffect {
  /** The call's identity (§7.2). */
  readonly identity: string;
  /** A poll call: waits after it are measured from the call (§7.4). */
  readonly poll: boolean;
  /** The record the call leaves: its own, a duplicate of a call of its turn (counted once: it spends nothing), or none. */
  readonly record: 'call' | 'duplicate' | 'none';
}

export interface Escalation {
  readonly detector: typeof DETECTORS.blockEscalation | typeof DETECTORS.criticalLoopRepeated;
  readonly count: number;
  readonly evidence: Evidence;
  readonly shadow: true | undefined;
}

const FOLD: RunVerdict = { kind: 'fold' };
const ALLOW: Verdict = { decision: 'allow' };
const SHADOW_ALLOW: Verdict = { decision: 'allow', shadow: true };

/** The state an event applies to: a run idle for longer than the TTL starts fresh. */
export function liveState(state: RunState, ts: number, ttlMs: number): RunState {
  return state.lastTs !== null && ts - state.lastTs > ttlMs ? initialRunState : state;
}

/** A tool event's verdict under §2's rules, for a run already live and not a redelivery. */
export function decideDefault(live: RunState, event: ToolEvent, cfg: RunConfig): RunVerdict {
  switch (event.type) {
    case 'tool_call':
      return decideCall(live, event, cfg);
    case 'tool_outcome':
      return decideOutcome(live, event, cfg);
    case 'compaction':
    case 'run_end':
      return FOLD;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

export const shadowOf = (cfg: RunConfig): true | undefined => (cfg.policy.mode === 'shadow' ? true : undefined);

// A literal with every field, not a spread: this runs for every call.
export const answer = (
  verdict: Verdict,
  warningKey?: string,
  record = true,
  counted = false,
  escalation?: Escalation,
  spendKey?: string,
  openclaw?: OpenclawCallEffect,
  early?: EarlyCallEffect,
): RunVerdict => ({
  kind: 'call',
  verdict,
  warningKey,
  record,
  counted,
  spendKey,
  escalation,
  openclaw,
  early,
});

// §2.5's blocks, then the budgets (§5), then §2.5's warn or allow.
function decideCall(state: RunState, e: ToolCall, cfg: RunConfig): RunVerdict {
  const shadow = shadowOf(cfg);
  if (state.aborted !== null) {
    const a = state.aborted;
    return answer({ decision: 'block', detector: a.detector, level: 'critical', count: a.count, notify: true, shadow, evidence: a.evidence });
  }
  const selected = cfg.policy.selectTool(e.toolName);
  const entry = selected?.[1];
  if (isExempt(entry, e.exempt)) return answer(shadow ? SHADOW_ALLOW : ALLOW, undefined, false);
  const found =
    cfg.enabled === true ? detect(state.history, { toolName: e.toolName, argsHash: e.argsHash, action: e.action, poll: entry?.poll }, callThresholds(cfg, entry)) : undefined;
  if (found?.decision === 'block') {
    const { detector, count, pairedToolName, evidence } = found;
    return answer({ decision: 'block', detector, level: 'critical', count, notify: true, pairedToolName, shadow, evidence }, undefined, true, true, escalationOf(state, e, cfg));
  }
  const budget = budgetBlock(state, e.ts, cfg, selected);
  if (budget !== undefined) {
    const { detector, count, evidence } = budget;
    return answer({ decision: 'block', detector, level: 'critical', count, notify: true, shadow, evidence }, undefined, true, true, escalationOf(state, e, cfg));
  }
  const key = spendKey(cfg, selected);
  if (found === undefined) return answer(shadow ? SHADOW_ALLOW : ALLOW, undefined, true, false, undefined, key);
  const { detector, count, pairedToolName, evidence } = found;
  const notify = shouldNotify(state.warnings, found.warningKey, count);
  return answer(
    { decision: 'warn', detector, level: 'warning', count, notify, pairedToolName, shadow, evidence },
    notify ? found.warningKey : undefined,
    true,
    false,
    undefined,
    key,
  );
}

/** §4.3: a tool's own thresholds, clamped again from the run's resolved global threshold. */
export function callThresholds(cfg: ResolvedLoopDetection, entry: ToolEntry | undefined): ResolvedLoopDetection {
  if (entry === undefined || (entry.warningThreshold === undefined && entry.criticalThreshold === undefined)) return cfg;
  const warningThreshold = entry.warningThreshold ?? cfg.warningThreshold;
  let criticalThreshold = entry.criticalThreshold ?? cfg.criticalThreshold;
  let globalCircuitBreakerThreshold = cfg.globalCircuitBreakerThreshold;
  if (criticalThreshold <= warningThreshold) criticalThreshold = warningThreshold + 1;
  if (globalCircuitBreakerThreshold <= criticalThreshold) globalCircuitBreakerThreshold = criticalThreshold + 1;
  return { ...cfg, warningThreshold, criticalThreshold, globalCircuitBreakerThreshold };
}

/** §4.2: this block ends the run when the blocks so far, it included, reach the limit. */
export function escalationOf(state: RunState, e: ToolCall, cfg: RunConfig): Escalation | undefined {
  const limit = cfg.policy.abortAfterBlocks;
  if (limit === undefined) return undefined;
  const blocked = addBlock(state.blocked, e.toolCallId, e.ts);
  if (blocked.count < limit) return undefined;
  return { detector: DETECTORS.blockEscalation, count: blocked.count, evidence: { toolCallIds: blocked.toolCallIds, since: blocked.since }, shadow: shadowOf(cfg) };
}

/**
 * The hash an outcome is folded with: none for an exempt tool (§4.3) or, when the run's
 * policy says so, a transient failure (§4.4).
 */
export function effectiveOutcome(e: ToolOutcome, cfg: RunConfig): OutcomeHash | undefined {
  if (e.outcome === undefined) return undefined;
  if (e.transient === true && cfg.policy.transientErrors) return undefined;
  return isExempt(cfg.policy.toolEntry(e.toolName), e.exempt) ? undefined : e.outcome;
}

function decideOutcome(state: RunState, e: ToolOutcome, cfg: RunConfig): RunVerdict {
  const outcome = effectiveOutcome(e, cfg);
  if (cfg.enabled === false || outcome === undefined || state.guard === null || state.aborted !== null) return FOLD;
  const entry = guardEntryOf(e, outcome.resultHash);
  const { count } = guardAfter(state.guard, entry);
  if (count < cfg.postCompactionGuard.windowSize) return FOLD;
  const carrying = [...state.guard.window.filter((w) => w.triple === entry.triple), entry];
  return { kind: 'abort', count, toolName: e.toolName, evidence: evidenceOf(carrying), shadow: shadowOf(cfg) };
}

export const guardEntryOf = (e: ToolOutcome, resultHash: string): GuardEntry => ({
  triple: `${e.toolName}\u0000${e.argsHash}\u0000${resultHash}`,
  toolCallId: e.toolCallId,
  ts: e.ts,
});

/** The guard after one more hashed outcome, and how often its triple is now in the window. */
export function guardAfter(guard: CompactionGuard, entry: GuardEntry): { readonly guard: CompactionGuard | null; readonly count: number } {
  const window = [...guard.window, entry];
  let count = 0;
  for (const w of window) if (w.triple === entry.triple) count++;
  const remaining = guard.remaining - 1;
  return { guard: remaining > 0 ? { remaining, window } : null, count };
}
