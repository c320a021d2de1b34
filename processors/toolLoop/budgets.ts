// Budgets (docs/behaviour.md §5): how many calls a run may make, to one tool or in all, and
// for how long it may keep calling tools, whatever the arguments. Checked after §2.5's blocks
// and before its warnings, in this order: the tool budget, the run's call budget, its time
// budget (event time, from the run's first spent call).
import type { Evidence } from '../kernel/evidence.js';
import type { RunConfig } from './config.js';
import type { SelectedTool } from './policy.js';
import { DETECTORS, spentOn, type RunState } from './state.js';

export interface BudgetBlock {
  readonly detector: typeof DETECTORS.toolCallBudget | typeof DETECTORS.runCallBudget | typeof DETECTORS.runTimeBudget;
  readonly count: number;
  readonly evidence: Evidence;
}

/** The budget that blocks a call at `ts` whose selected entry is `selected`, if one does. */
export function budgetBlock(state: RunState, ts: number, cfg: RunConfig, selected: SelectedTool | undefined): BudgetBlock | undefined {
  const { spent } = state;
  if (spent === null) return undefined;
  const maxToolCalls = selected?.[1].maxCalls;
  if (maxToolCalls !== undefined) {
    const t = spentOn(spent, selected![0]);
    if (t !== undefined && t.count >= maxToolCalls) return { detector: DETECTORS.toolCallBudget, count: t.count, evidence: { toolCallIds: t.toolCallIds, since: t.since } };
  }
  const budgets = cfg.policy.budgets;
  const all = spent.all;
  if (budgets === undefined || all === null) return undefined;
  if (budgets.maxCalls !== undefined && all.count >= budgets.maxCalls) {
    return { detector: DETECTORS.runCallBudget, count: all.count, evidence: { toolCallIds: all.toolCallIds, since: all.since } };
  }
  const elapsed = ts - all.since;
  if (budgets.maxSeconds !== undefined && elapsed >= budgets.maxSeconds * 1000) {
    return { detector: DETECTORS.runTimeBudget, count: Math.floor(elapsed / 1000), evidence: { toolCallIds: [], since: all.since } };
  }
  return undefined;
}

/** The key a spent call is counted on: its selected key, when a budget may ever ask about it. */
export function spendKey(cfg: RunConfig, selected: SelectedTool | undefined): string | undefined {
  return selected !== undefined && cfg.policy.tracking.keys.has(selected[0]) ? selected[0] : undefined;
}
