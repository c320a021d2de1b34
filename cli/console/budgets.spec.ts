// The console and the demo with budgets (docs/behaviour.md §5): the demo's researcher run hits
// its search budget, and the console lists it with its budget block and its spent calls.
import { describe, expect, it } from 'vitest';
import { buildTopology } from '../../topology/build.js';
import { configFrom } from '../../topology/config.js';
import { InMemoryDriver } from '../../topology/testing/driver.js';
import { demoConfig, demoScenarios } from '../demo/traffic.js';
import { ConsoleView, type ConsoleDecision } from './view.js';

describe('budgets in the console', () => {
  const driver = new InMemoryDriver(buildTopology(configFrom(demoConfig)), 3);
  const view = new ConsoleView();
  for (const e of demoScenarios().flatMap((s) => s.events)) {
    const r = driver.pipe(e);
    if (r.ok) for (const d of r.decisions) view.add(d);
  }
  const snap = view.snapshot();

  it("lists the demo's researcher run as blocked by its tool budget, with its 5 spent calls", () => {
    expect(snap.runs.find((r) => r.key === 'run-researcher')).toMatchObject({
      state: 'blocked',
      toolName: 'web_search',
      detector: 'tool_call_budget',
      count: 5,
      blocks: 2,
      calls: 5,
    });
  });
  it('feeds and counts the budget blocks', () => {
    expect(snap.feed.filter((f) => f.why === 'tool_call_budget').map((f) => [f.verdict, f.count])).toEqual([
      ['block', 5],
      ['block', 5],
    ]);
    expect(snap.counts.find((c) => c.why === 'tool_call_budget')).toMatchObject({ verdict: 'block', shadow: false });
  });
  it("takes a run call budget block's count as the run's spent calls", () => {
    const v = new ConsoleView();
    const base = { source: { topic: 't', partition: 0, offset: 0 }, type: 'tool_decision', key: 'r', sessionKey: 'r', runId: 'r', toolName: 'read', pairedToolName: null } as const;
    const allow = { ...base, level: null, detector: null, count: null, message: null, notify: null, decision: 'allow' } as const;
    v.add({ ...allow, id: 'a', ts: 1, toolCallId: 'c1' } as ConsoleDecision);
    v.add({
      ...base,
      id: 'b',
      ts: 2,
      toolCallId: 'c2',
      decision: 'block',
      level: 'critical',
      detector: 'run_call_budget',
      count: 200,
      message: 'Blocked',
      notify: true,
    } as ConsoleDecision);
    expect(v.snapshot().runs[0]).toMatchObject({ key: 'r', calls: 200, blocks: 1 });
  });
});
