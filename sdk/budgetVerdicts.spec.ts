// The SDK's verdict names the budget a block used up (docs/behaviour.md §5), in enforce and in
// shadow mode; no other answer names one.
import { describe, expect, it } from 'vitest';
import type { ToolDecision } from '../processors/toolLoop/react.js';
import { budgetOf, toolVerdictOf } from './verdicts.js';

const decision = (over: Partial<ToolDecision>): ToolDecision => ({
  type: 'tool_decision',
  key: 'run-1',
  sessionKey: 's',
  runId: 'run-1',
  ts: 5_000,
  toolCallId: 'c4',
  toolName: 'web_search',
  decision: 'block',
  detector: 'tool_call_budget',
  level: 'critical',
  count: 5,
  message: 'Blocked',
  pairedToolName: null,
  notify: true,
  shadow: null,
  evidence: { toolCallIds: ['c1'], since: 1 },
  turnBlockedBy: null,
  ...over,
});

describe('budget verdicts', () => {
  it.each([
    ['tool_call_budget', 'tool_calls'],
    ['run_call_budget', 'run_calls'],
    ['run_time_budget', 'run_time'],
  ] as const)('says a %s block used up the %s budget', (detector, budget) => {
    expect(toolVerdictOf(decision({ detector }), 'c4')).toMatchObject({ decision: 'block', detector, count: 5, budget, wouldHave: null });
  });
  it('reports a shadow budget block as wouldHave, naming the budget there', () => {
    const v = toolVerdictOf(decision({ detector: 'run_time_budget', count: 3600, shadow: true }), 'c4');
    expect(v).toMatchObject({ decision: 'allow', budget: null, wouldHave: { decision: 'block', detector: 'run_time_budget', count: 3600, budget: 'run_time' } });
  });
  it('names no budget for other detectors, or none', () => {
    expect(toolVerdictOf(decision({ detector: 'generic_repeat' }), 'c4').budget).toBeNull();
    expect(budgetOf(null)).toBeNull();
    expect(budgetOf('toString')).toBeNull();
  });
});
