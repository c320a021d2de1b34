// Budgets (docs/behaviour.md §5) in given / when / then form over raw events: each rule at its
// boundary, its place in the decision order, and how it lives with the run.
import { describe, expect, it } from 'vitest';
import { given } from '../kernel/spec.js';
import type { LoopDetectionBlock, RunAbort, ToolDecision, ToolLoopConfig } from './index.js';
import type { ToolPolicyBlock } from './policy.js';
import { runEvents, toolLoopSpec, type RawToolEvent } from './testing/events.js';

type Decision = ToolDecision | RunAbort;
const TTL = 86_400_000;
const cfg = (policy: ToolPolicyBlock, global: LoopDetectionBlock = {}): ToolLoopConfig => ({ global, agents: {}, runTtlMs: TTL, policy });
const spec = (policy: ToolPolicyBlock, global?: LoopDetectionBlock) => toolLoopSpec(cfg(policy, global));
const calls = (ds: readonly unknown[]) => ds.filter((d): d is ToolDecision => (d as Decision).type === 'tool_decision');
const aborts = (ds: readonly unknown[]) => ds.filter((d): d is RunAbort => (d as Decision).type === 'run_abort');
const only = (ds: readonly unknown[]): ToolDecision => {
  expect(ds).toHaveLength(1);
  return ds[0] as ToolDecision;
};
type Run = ReturnType<typeof runEvents>;
/** `n` calls to `tool`, each with new arguments (so no repetition rule ever fires). */
const varied = (r: Run, n: number, tool: string, extra: Record<string, unknown> = {}) => Array.from({ length: n }, (_, i) => r.call(tool, { i, tool }, extra));

describe('tool call budget (§5 rule 2)', () => {
  const p = spec({ tools: { web_search: { maxCalls: 3 } } });
  it('allows the maxCalls-th call of the tool', () => {
    const r = runEvents();
    given(p, varied(r, 2, 'web_search'))
      .when(r.call('web_search', { i: 'last' }))
      .then((ds) => expect(only(ds)).toMatchObject({ decision: 'allow', detector: null }));
  });
  it('blocks the call after maxCalls, with the spent calls as evidence', () => {
    const r = runEvents();
    const before = varied(r, 3, 'web_search');
    given(p, before)
      .when(r.call('web_search', { i: 'over' }))
      .then((ds) => {
        const d = only(ds);
        expect(d).toMatchObject({ decision: 'block', detector: 'tool_call_budget', level: 'critical', count: 3, notify: true, toolName: 'web_search' });
        expect(d.evidence).toEqual({ toolCallIds: before.map((c) => c.toolCallId), since: before[0]!.ts });
        for (const part of ['tool_call_budget', 'web_search', '3']) expect(d.message).toContain(part);
      });
  });
  it('keeps blocking, with the same count: a blocked call spends nothing', () => {
    const r = runEvents();
    const ds = calls(given(p).whenAll(varied(r, 6, 'web_search')));
    expect(ds.map((d) => [d.decision, d.count])).toEqual([
      ['allow', null],
      ['allow', null],
      ['allow', null],
      ['block', 3],
      ['block', 3],
      ['block', 3],
    ]);
  });
  it('counts only the calls of that entry: other tools are not limited by it', () => {
    const r = runEvents();
    given(p, varied(r, 3, 'web_search'))
      .when(r.call('read', { i: 1 }))
      .then((ds) => expect(only(ds).decision).toBe('allow'));
  });
  it('counts every tool a pattern selects together', () => {
    const r = runEvents();
    const q = spec({ tools: { 'web_*': { maxCalls: 3 } } });
    given(q, [...varied(r, 2, 'web_search'), ...varied(r, 1, 'web_fetch')])
      .when(r.call('web_open', { i: 1 }))
      .then((ds) => expect(only(ds)).toMatchObject({ decision: 'block', detector: 'tool_call_budget', count: 3 }));
  });
  it('does not limit a tool whose own exact entry has no maxCalls, though a pattern with one matches it', () => {
    const r = runEvents();
    const q = spec({ tools: { 'web_*': { maxCalls: 2 }, web_fetch: { poll: false } } });
    const ds = calls(given(q).whenAll([...varied(r, 2, 'web_search'), ...varied(r, 3, 'web_fetch'), r.call('web_search', { i: 'x' })]));
    expect(ds.map((d) => d.decision)).toEqual(['allow', 'allow', 'allow', 'allow', 'allow', 'block']);
  });
  it('gives an exact key its own count, apart from a pattern that also matches the name', () => {
    const r = runEvents();
    const q = spec({ tools: { 'web_*': { maxCalls: 5 }, web_fetch: { maxCalls: 1 } } });
    const ds = calls(given(q).whenAll([r.call('web_fetch', { i: 1 }), r.call('web_fetch', { i: 2 }), ...varied(r, 5, 'web_search'), r.call('web_open', {})]));
    expect(ds.map((d) => [d.decision, d.detector, d.count])).toEqual([
      ['allow', null, null],
      ['block', 'tool_call_budget', 1],
      ...Array.from({ length: 5 }, () => ['allow', null, null]),
      ['block', 'tool_call_budget', 5],
    ]);
  });
});

describe('run call budget (§5 rule 3)', () => {
  const p = spec({ budgets: { maxCalls: 4 } });
  it('allows the maxCalls-th call and blocks the next, whatever the tools', () => {
    const r = runEvents();
    const before = [...varied(r, 2, 'a'), ...varied(r, 1, 'b')];
    const fourth = r.call('c', {});
    const fifth = r.call('d', {});
    const ds = calls(given(p, before).whenAll([fourth, fifth]));
    expect(ds[0]).toMatchObject({ decision: 'allow' });
    expect(ds[1]).toMatchObject({ decision: 'block', detector: 'run_call_budget', level: 'critical', count: 4, notify: true });
    expect(ds[1]!.evidence).toEqual({ toolCallIds: [...before, fourth].map((c) => c.toolCallId), since: before[0]!.ts });
    for (const part of ['run_call_budget', 'd', '4']) expect(ds[1]!.message).toContain(part);
  });
  it('lists at most the newest 20 spent calls, skipping calls without an id, since the first spent call', () => {
    const r = runEvents();
    const q = spec({ budgets: { maxCalls: 25 } });
    const first = r.call('a', { i: 'first' }, { toolCallId: undefined });
    const rest = varied(r, 24, 'a');
    given(q, [first, ...rest])
      .when(r.call('a', { i: 'over' }))
      .then((ds) => expect(only(ds).evidence).toEqual({ toolCallIds: rest.slice(4).map((c) => c.toolCallId), since: first.ts }));
  });
  it('is checked after the tool budget: a call both would block reports the tool budget', () => {
    const r = runEvents();
    const q = spec({ budgets: { maxCalls: 2 }, tools: { a: { maxCalls: 2 } } });
    given(q, varied(r, 2, 'a'))
      .when(r.call('a', { i: 'x' }))
      .then((ds) => expect(only(ds)).toMatchObject({ detector: 'tool_call_budget', count: 2 }));
  });
});

describe('run time budget (§5 rule 4)', () => {
  const p = spec({ budgets: { maxSeconds: 60 } });
  const at = (r: Run, ts: number, tool = 'a') => r.call(tool, { ts }, { ts });
  it('allows a call one millisecond before maxSeconds after the first spent call, and blocks one at exactly maxSeconds', () => {
    const r = runEvents();
    const first = at(r, 1_000_000);
    const before = given(p, [first]);
    expect(only(before.when(at(r, 1_059_999)).decisions).decision).toBe('allow');
    before.when(at(r, 1_060_000)).then((ds) => {
      const d = only(ds);
      expect(d).toMatchObject({ decision: 'block', detector: 'run_time_budget', level: 'critical', count: 60, notify: true });
      expect(d.evidence).toEqual({ toolCallIds: [], since: first.ts });
      for (const part of ['run_time_budget', '60']) expect(d.message).toContain(part);
    });
  });
  it('counts whole seconds, rounded down', () => {
    const r = runEvents();
    given(p, [at(r, 1_000_000)])
      .when(at(r, 1_061_999))
      .then((ds) => expect(only(ds).count).toBe(61));
  });
  it('starts at the first spent call: an exempt call before it starts nothing', () => {
    const r = runEvents();
    const q = spec({ budgets: { maxSeconds: 60 }, tools: { idle: { exempt: true } } });
    const events = [at(r, 1_000_000, 'idle'), at(r, 1_010_000, 'b'), at(r, 1_069_999, 'b'), at(r, 1_070_000, 'b')];
    expect(calls(given(q).whenAll(events)).map((d) => d.decision)).toEqual(['allow', 'allow', 'allow', 'block']);
  });
  it('is measured in event time: an out-of-order call earlier than the first spent one is not over budget', () => {
    const r = runEvents();
    given(p, [at(r, 1_100_000)])
      .when(at(r, 1_000_000))
      .then((ds) => expect(only(ds).decision).toBe('allow'));
  });
  it('is checked after the run call budget', () => {
    const r = runEvents();
    const q = spec({ budgets: { maxCalls: 1, maxSeconds: 1 } });
    given(q, [at(r, 1_000_000)])
      .when(at(r, 1_005_000))
      .then((ds) => expect(only(ds).detector).toBe('run_call_budget'));
  });
});

describe('budgets against loop detection (§5 rules 1 and 5)', () => {
  const same = () => 'same';
  it('lets a §2.5 block stand over a budget that would also block', () => {
    const r = runEvents();
    // 20 identical calls with identical outcomes: the 21st is a generic_repeat block (§2.5 rule 7).
    const p = spec({ budgets: { maxCalls: 20 } }, { enabled: true });
    given(p, r.repeat(20, 'read', { p: 1 }, same))
      .when(r.call('read', { p: 1 }))
      .then((ds) => expect(only(ds)).toMatchObject({ decision: 'block', detector: 'generic_repeat', count: 20 }));
  });
  it('blocks by budget a call §2.5 would only warn', () => {
    const r = runEvents();
    const p = spec({ budgets: { maxCalls: 10 } }, { enabled: true });
    given(
      p,
      r.repeat(10, 'read', { p: 1 }, (i) => i),
    )
      .when(r.call('read', { p: 1 }))
      .then((ds) => expect(only(ds)).toMatchObject({ decision: 'block', detector: 'run_call_budget', count: 10 }));
  });
  it('spends warned calls', () => {
    const r = runEvents();
    const p = spec({ budgets: { maxCalls: 12 } }, { enabled: true });
    const ds = calls(given(p).whenAll(r.repeat(13, 'read', { p: 1 }, (i) => i)));
    expect(ds.map((d) => d.decision)).toEqual([...Array<string>(10).fill('allow'), 'warn', 'warn', 'block']);
  });
  it('does not record a budget block in history', () => {
    const r = runEvents();
    // Nine identical calls spend the global budget; the tenth is blocked by it. Once the run
    // names an agent with a larger budget, the next identical call counts nine before it (a
    // recorded block would make ten, a warning), and the one after that ten.
    const p = spec({ tools: { read: { maxCalls: 9 } }, agents: { more: { tools: { read: { maxCalls: 100 } } } } }, { enabled: true });
    const ds = calls(
      given(p).whenAll([...r.repeat(9, 'read', { p: 1 }, (i) => i), r.call('read', { p: 1 }), r.call('read', { p: 1 }, { agentId: 'more' }), r.call('read', { p: 1 })]),
    );
    expect(ds.slice(-3).map((d) => [d.decision, d.detector, d.count])).toEqual([
      ['block', 'tool_call_budget', 9],
      ['allow', null, null],
      ['warn', 'generic_repeat', 10],
    ]);
  });
  it.each([
    ['unset', {}],
    ['false', { enabled: false }],
    ['true', { enabled: true }],
  ])('applies whether loop detection is enabled or not (enabled %s)', (_, global) => {
    const r = runEvents();
    const ds = calls(given(spec({ budgets: { maxCalls: 2 } }, global)).whenAll(varied(r, 3, 'a')));
    expect(ds.map((d) => d.decision)).toEqual(['allow', 'allow', 'block']);
  });
});

describe('what spends (§5)', () => {
  it('exempt calls neither spend nor are limited', () => {
    const r = runEvents();
    const p = spec({ budgets: { maxCalls: 2 }, tools: { ping: { exempt: true } } });
    const ds = calls(given(p).whenAll([...varied(r, 3, 'ping'), ...varied(r, 2, 'a'), ...varied(r, 2, 'ping'), r.call('a', { i: 'x' })]));
    expect(ds.map((d) => d.decision)).toEqual(['allow', 'allow', 'allow', 'allow', 'allow', 'allow', 'allow', 'block']);
  });
  it('an exempt entry with maxCalls is still exempt', () => {
    const r = runEvents();
    const ds = calls(given(spec({ tools: { ping: { exempt: true, maxCalls: 1 } } })).whenAll(varied(r, 3, 'ping')));
    expect(ds.map((d) => d.decision)).toEqual(['allow', 'allow', 'allow']);
  });
  it('a redelivered call spends nothing and gets its original decision', () => {
    const r = runEvents();
    const p = spec({ budgets: { maxCalls: 2 } });
    const first = { ...r.call('a', { i: 1 }), eventId: 'e1' };
    const ds = calls(given(p).whenAll([first, { ...first, ts: first.ts + 5 }, { ...first, ts: first.ts + 6 }, r.call('a', { i: 2 }), r.call('a', { i: 3 })]));
    expect(ds.map((d) => d.decision)).toEqual(['allow', 'allow', 'allow', 'allow', 'block']);
  });
  it('a redelivered blocked call gets its block again, though a run_end has since started the budgets afresh', () => {
    const r = runEvents();
    const p = spec({ budgets: { maxCalls: 1 } });
    const blocked = { ...r.call('a', { i: 2 }), eventId: 'e2' };
    const again = given(p, [r.call('a', { i: 1 }), blocked, r.runEnd()]).when(blocked).decisions;
    expect(only(again)).toMatchObject({ decision: 'block', detector: 'run_call_budget', count: 1 });
  });
});

describe('budgets live with the run (§5)', () => {
  const p = spec({ budgets: { maxCalls: 2, maxSeconds: 100 } });
  it('starts afresh after run_end', () => {
    const r = runEvents();
    const ds = calls(given(p).whenAll([...varied(r, 3, 'a'), r.runEnd(), ...varied(r, 3, 'a')]));
    expect(ds.map((d) => d.decision)).toEqual(['allow', 'allow', 'block', 'allow', 'allow', 'block']);
  });
  it('starts afresh when the run was idle for longer than the TTL, and not at exactly the TTL', () => {
    const r = runEvents();
    const first = r.call('a', { i: 1 });
    const second = r.call('a', { i: 2 });
    const atTtl = { ...r.call('a', { i: 3 }), ts: second.ts + TTL };
    const pastTtl = { ...r.call('a', { i: 4 }), ts: second.ts + TTL + 1 };
    expect(only(given(p, [first, second]).when(atTtl).decisions).detector).toBe('run_call_budget');
    expect(only(given(p, [first, second]).when(pastTtl).decisions).decision).toBe('allow');
  });
  it("runs the time budget from the fresh run's first spent call after run_end", () => {
    const r = runEvents();
    const q = spec({ budgets: { maxSeconds: 10 } });
    const a = (ts: number) => r.call('a', { ts }, { ts });
    const ds = calls(given(q).whenAll([a(1_000_000), { ...r.runEnd(), ts: 1_005_000 }, a(1_009_000), a(1_018_999), a(1_019_000)]));
    expect(ds.map((d) => d.decision)).toEqual(['allow', 'allow', 'allow', 'block']);
  });
});

describe('budgets per agent (§5 resolution)', () => {
  const p = spec({
    budgets: { maxCalls: 3 },
    tools: { web_search: { maxCalls: 1 } },
    agents: { researcher: { budgets: { maxCalls: 5 }, tools: { web_search: { maxCalls: 2 } } }, timed: { budgets: { maxSeconds: 2 } } },
  });
  const researcher = { agentId: 'researcher' };
  it("uses the agent's numbers for its runs", () => {
    const r = runEvents();
    const ds = calls(given(p).whenAll([...varied(r, 3, 'web_search', researcher), ...varied(r, 3, 'read', researcher)]));
    expect(ds.map((d) => [d.decision, d.detector])).toEqual([
      ['allow', null],
      ['allow', null],
      ['block', 'tool_call_budget'],
      ['allow', null],
      ['allow', null],
      ['allow', null],
    ]);
    const after = given(p, [...varied(r, 2, 'web_search', researcher), ...varied(r, 3, 'read')]);
    expect(only(after.when(r.call('read', { i: 'x' })).decisions)).toMatchObject({ detector: 'run_call_budget', count: 5 });
  });
  it('keeps a global budget for an agent that sets only another one', () => {
    const r = runEvents();
    const timed = { agentId: 'timed' };
    const ds = calls(given(p).whenAll(varied(r, 4, 'read', timed)));
    expect(ds.map((d) => [d.decision, d.detector])).toEqual([
      ['allow', null],
      ['allow', null],
      ['block', 'run_time_budget'],
      ['block', 'run_time_budget'],
    ]);
    const r2 = runEvents('run-2');
    const byCount = calls(given(spec({ budgets: { maxCalls: 3 }, agents: { timed: { budgets: { maxSeconds: 100 } } } })).whenAll(varied(r2, 4, 'read', timed)));
    expect(byCount.map((d) => d.detector)).toEqual([null, null, null, 'run_call_budget']);
  });
  it('counts the calls made before the run named its agent against the agent’s budget', () => {
    const r = runEvents();
    const ds = calls(given(p).whenAll([...varied(r, 3, 'read'), ...varied(r, 3, 'read', researcher)]));
    expect(ds.map((d) => d.decision)).toEqual(['allow', 'allow', 'allow', 'allow', 'allow', 'block']);
  });
  it('lets an agent add a tool budget the global policy does not have; calls that selected no entry then do not count on it', () => {
    const r = runEvents();
    const q = spec({ agents: { researcher: { tools: { web_search: { maxCalls: 1 } } } } });
    const ds = calls(given(q).whenAll([...varied(r, 2, 'web_search'), ...varied(r, 2, 'web_search', researcher)]));
    expect(ds.map((d) => d.decision)).toEqual(['allow', 'allow', 'allow', 'block']);
  });
});

describe('budgets in shadow mode (§5, §4.1)', () => {
  it('marks a budget block shadow, and it spends nothing', () => {
    const r = runEvents();
    const p = spec({ mode: 'shadow', tools: { a: { maxCalls: 1 } } });
    const ds = calls(given(p).whenAll([...varied(r, 3, 'a'), r.call('b', {})]));
    expect(ds.map((d) => [d.decision, d.detector, d.count, d.shadow])).toEqual([
      ['allow', null, null, true],
      ['block', 'tool_call_budget', 1, true],
      ['block', 'tool_call_budget', 1, true],
      ['allow', null, null, true],
    ]);
  });
});

describe('budget blocks and escalation (§5, §4.2)', () => {
  const p = spec({ budgets: { maxCalls: 2 }, escalation: { abortAfterBlocks: 3 } });
  it('counts budget blocks toward abortAfterBlocks, and ends the run at the limit', () => {
    const r = runEvents();
    const [b1, b2, b3] = varied(r, 3, 'x');
    given(p, [...varied(r, 2, 'a'), b1!, b2!])
      .when(b3!)
      .then((ds) => {
        expect(ds.map((d) => d.type)).toEqual(['tool_decision', 'run_abort']);
        expect(ds[0]).toMatchObject({ decision: 'block', detector: 'run_call_budget', count: 2 });
        expect(ds[1]).toMatchObject({ detector: 'block_escalation', count: 3, toolName: 'x' });
        expect((ds[1] as RunAbort).evidence).toEqual({ toolCallIds: [b1!.toolCallId, b2!.toolCallId, b3!.toolCallId], since: b1!.ts });
      });
  });
  it('does not end the run one block below the limit', () => {
    const r = runEvents();
    expect(aborts(given(p).whenAll(varied(r, 4, 'a')))).toHaveLength(0);
  });
  it('counts §2.5 blocks and budget blocks together', () => {
    const r = runEvents();
    const q = spec({ tools: { b: { maxCalls: 1 } }, escalation: { abortAfterBlocks: 2 } }, { enabled: true, warningThreshold: 1, criticalThreshold: 2 });
    const same = () => 'same';
    const events: RawToolEvent[] = [...r.repeat(2, 'read', { p: 1 }, same), r.call('read', { p: 1 }), r.call('b', { i: 1 }), r.call('b', { i: 2 })];
    const ds = given(q).whenAll(events);
    expect(calls(ds).map((d) => d.detector)).toEqual([null, 'generic_repeat', 'generic_repeat', null, 'tool_call_budget']);
    expect(aborts(ds)).toMatchObject([{ detector: 'block_escalation', count: 2 }]);
  });
  it('blocks every call after the abort with the abort, spending nothing more', () => {
    const r = runEvents();
    const ds = calls(given(p).whenAll(varied(r, 7, 'a')));
    expect(ds.map((d) => d.detector)).toEqual([null, null, 'run_call_budget', 'run_call_budget', 'run_call_budget', 'block_escalation', 'block_escalation']);
  });
});
