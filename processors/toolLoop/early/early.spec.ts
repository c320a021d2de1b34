// The early preset's rules (docs/behaviour.md §7) for one run, given / when / then: each rule and
// each edge of it — waits, polls, turns, transient failures, missing tools, cycles of two, three
// and four calls, identity from the config, the event or `false`.
import { describe, expect, it } from 'vitest';
import { given } from '../../kernel/spec.js';
import type { ToolLoopConfig } from '../config.js';
import type { ToolDecision, ToolLoopDecision } from '../react.js';
import { toolLoopSpec, type RawToolEvent } from '../testing/events.js';
import type { RunState } from '../state.js';

const T0 = 1_780_000_000_000;

const config = (block: ToolLoopConfig['global'] = {}, policy?: ToolLoopConfig['policy']): ToolLoopConfig => ({
  global: { enabled: true, profile: 'early', ...block },
  agents: {},
  runTtlMs: 86_400_000,
  ...(policy ? { policy } : {}),
});

const text = (t: string) => ({ content: [{ type: 'text', text: t }] });

/**
 * A run's events on one clock: each call 2 s after the previous event and its outcome 0.5 s
 * after the call, unless told otherwise. `step` is a call and its outcome.
 */
function script() {
  let ts = T0;
  let n = 0;
  const ids = { sessionKey: 's', runId: 'r1' };
  const s = {
    call: (toolName: string, args: unknown, extra: Record<string, unknown> = {}, after = 2_000): RawToolEvent => ({
      type: 'tool_call',
      ts: (ts += after),
      ...ids,
      toolName,
      args,
      toolCallId: `c${++n}`,
      ...extra,
    }),
    /** The outcome of call `c<id>`. */
    outcome: (id: number, toolName: string, args: unknown, outcome: Record<string, unknown>, after = 500): RawToolEvent => ({
      type: 'tool_outcome',
      ts: (ts += after),
      ...ids,
      toolName,
      args,
      toolCallId: `c${id}`,
      ...outcome,
    }),
    step: (toolName: string, args: unknown, result: unknown, after = 2_000): RawToolEvent[] => {
      const c = s.call(toolName, args, {}, after);
      return [c, s.outcome(n, toolName, args, { result })];
    },
    failing: (toolName: string, args: unknown, error: unknown): RawToolEvent[] => {
      const c = s.call(toolName, args);
      return [c, s.outcome(n, toolName, args, { error })];
    },
    wait: (ms: number) => {
      ts += ms;
    },
    compaction: (): RawToolEvent => ({ type: 'compaction', ts: (ts += 1_000), ...ids }),
  };
  return s;
}

const label = (d: ToolLoopDecision): string =>
  d.type === 'run_abort' ? `abort ${d.detector} ${d.count}` : d.decision === 'allow' ? 'allow' : `${d.decision} ${d.detector} ${d.count}`;

/** The one decision the `when` call gets, as a label. */
function decided(history: readonly RawToolEvent[], call: RawToolEvent, cfg = config()): string {
  const { decisions } = given(toolLoopSpec(cfg), history).when(call);
  return decisions.map(label).join(' + ');
}

/** Calls made closed loop (a blocked call is not run): each call's decision. */
function closedLoop(calls: ReadonlyArray<readonly [tool: string, args: unknown, result: unknown]>, cfg = config(), gapMs = 2_000): string[] {
  const p = toolLoopSpec(cfg);
  const s = script();
  let state = p.initialState;
  const out: string[] = [];
  for (const [tool, args, result] of calls) {
    const [call, outcome] = s.step(tool, args, result, gapMs);
    const r = given(p, [], state).when(call!);
    out.push(r.decisions.map(label).join(' + '));
    state = r.state;
    if ((r.decisions[0] as ToolDecision).decision !== 'block') state = given(p, [outcome!], state).state;
  }
  return out;
}

const times = <T>(n: number, x: T): T[] => Array.from({ length: n }, () => x);

describe('early preset: a call whose outcome the run already has', () => {
  it('allows the first two identical calls and blocks the third (no_progress, count 2: the two that returned it)', () => {
    const s = script();
    const history = [...s.step('read', { path: 'a' }, text('x')), ...s.step('read', { path: 'a' }, text('x'))];
    const { decisions } = given(toolLoopSpec(config()), history).when(s.call('read', { path: 'a' }));
    expect(decisions.map(label)).toEqual(['block no_progress 2']);
    expect((decisions[0] as ToolDecision).evidence).toEqual({ toolCallIds: ['c1', 'c2'], since: T0 + 2_000 });
    expect((decisions[0] as ToolDecision).notify).toBe(true);
    expect((decisions[0] as ToolDecision).level).toBe('critical');
  });

  it('never blocks a call whose outcome changes, and never warns', () => {
    const got = closedLoop(Array.from({ length: 40 }, (_, i) => ['read', { path: 'a' }, text(`v${i}`)] as const));
    expect(new Set(got)).toEqual(new Set(['allow']));
  });

  it('allows the first repeat of an outcome when nothing else came between: the second call is not stale evidence yet', () => {
    const s = script();
    expect(decided(s.step('read', { path: 'a' }, text('x')), s.call('read', { path: 'a' }))).toBe('allow');
  });

  it('blocks a call when a stale record follows its last outcome, though that outcome was new', () => {
    const s = script();
    // B, A, B again with B's result: A's outcome is all the run has of A, and nothing since is new.
    const history = [...s.step('b', {}, text('y')), ...s.step('a', {}, text('x')), ...s.step('b', {}, text('y'))];
    expect(decided(history, s.call('a', {}))).toBe('block no_progress 2');
  });

  it('allows a call when anything since its last outcome made progress', () => {
    const s = script();
    const history = [...s.step('a', {}, text('x')), ...s.step('a', {}, text('x')), ...s.step('edit', { n: 1 }, text('ok'))];
    expect(decided(history, s.call('a', {}))).toBe('allow');
  });
});

describe('early preset: waits', () => {
  it('allows the same outcome again after a wait of 30 s from the last outcome, and blocks at 29.999 s', () => {
    const at = (ms: number) => {
      const s = script();
      const history = [...s.step('status', {}, text('ok')), ...s.step('status', {}, text('ok'))];
      s.wait(ms - 2_000);
      return decided(history, s.call('status', {}));
    };
    expect(at(30_000)).toBe('allow');
    expect(at(29_999)).toBe('block no_progress 2');
  });

  it('does not count a record as stale when its call waited 30 s after the outcome before it', () => {
    const s = script();
    const history = [...s.step('status', {}, text('ok')), ...s.step('status', {}, text('ok'), 30_000), ...s.step('status', {}, text('ok'), 30_000)];
    // Each repeat waited: the newest is not stale, so the next call right after it is allowed...
    expect(decided(history, s.call('status', {}))).toBe('allow');
  });

  it('measures a poll’s wait from the earlier call, not its outcome (§2.4 known polls and §4.3 poll)', () => {
    const poll = (tool: string, args: unknown, cfg = config()) => {
      const s = script();
      // Each poll runs 25 s: 30 s after the previous call, 5 s after its outcome.
      const step = () => [s.call(tool, args, {}, 5_000), s.outcome(0, tool, args, { result: text('running') }, 25_000)];
      const history = [...step(), ...step()].map((e, i) => (e.type === 'tool_outcome' ? { ...e, toolCallId: `c${Math.ceil(i / 2)}` } : e));
      return decided(history, s.call(tool, args, {}, 5_000), cfg);
    };
    expect(poll('process', { action: 'poll', sessionId: 'j' })).toBe('allow');
    expect(poll('wait_for_job', { id: 1 })).toBe('block no_progress 2');
    expect(poll('wait_for_job', { id: 1 }, config({}, { tools: { wait_for_job: { poll: true } } }))).toBe('allow');
    expect(poll('process', { action: 'poll', sessionId: 'j' }, config({}, { tools: { process: { poll: false } } }))).toBe('block no_progress 2');
  });
});

describe('early preset: turns', () => {
  it('counts identical calls of one turn once: answered as the first, their outcomes ignored', () => {
    const p = toolLoopSpec(config());
    const s = script();
    const read = (turnId: string) => s.call('read', { path: 'a' }, { turnId });
    const done = (id: number) => s.outcome(id, 'read', { path: 'a' }, { result: text('x') });
    const turn1 = [read('t1'), read('t1'), read('t1')];
    const g = given(p, []);
    expect(g.whenAll(turn1).map(label)).toEqual(['allow', 'allow', 'allow']);
    const after1 = given(p, [...turn1, done(1), done(2), done(3)]).state as RunState;
    expect(after1.history.map((r) => (r as { duplicate?: boolean }).duplicate)).toEqual([false, true, true]);
    // One call's outcome known: the next turn's call is allowed, the one after blocked.
    const turn2 = read('t2');
    expect(
      given(p, [...turn1, done(1), done(2), done(3)])
        .when(turn2)
        .decisions.map(label),
    ).toEqual(['allow']);
    expect(
      given(p, [...turn1, done(1), done(2), done(3), turn2, done(4)])
        .when(read('t3'))
        .decisions.map(label),
    ).toEqual(['block no_progress 2']);
  });

  it('counts a repeat of a call whose outcome came already, in the same turn, as a call of its own', () => {
    const s = script();
    const history = [s.call('read', { path: 'a' }, { turnId: 't1' }), s.outcome(1, 'read', { path: 'a' }, { result: text('x') })];
    const again = s.call('read', { path: 'a' }, { turnId: 't1' });
    const after = given(toolLoopSpec(config()), history).when(again).state;
    expect((after.history[1] as { duplicate?: boolean }).duplicate).toBe(false);
  });

  it('skips the calls of its own turn still waiting for outcomes: they do not keep a loop from being stopped', () => {
    const s = script();
    const history = [...s.step('read', { path: 'a' }, text('x')), ...s.step('read', { path: 'a' }, text('x')), s.call('ls', { dir: 'b' }, { turnId: 't9' })];
    expect(decided(history, s.call('read', { path: 'a' }, { turnId: 't9' }))).toBe('block no_progress 2');
    // A call of another turn still waiting counts as not stale: the run may be making progress there.
    const other = [...history.slice(0, 4), s.call('ls', { dir: 'b' }, { turnId: 't8' })];
    expect(decided(other, s.call('read', { path: 'a' }, { turnId: 't9' }))).toBe('allow');
  });
});

describe('early preset: transient failures and missing tools', () => {
  it('never blocks retries after transient failures (§4.4 is always on under the preset), nor takes them for stale', () => {
    const s = script();
    const history = [
      ...s.failing('fetch', { q: 1 }, '503 Service Unavailable'),
      ...s.failing('fetch', { q: 1 }, { message: 'slow', status: 429 }),
      ...s.failing('fetch', { q: 1 }, 'timed out'),
    ];
    expect(decided(history, s.call('fetch', { q: 1 }), config({}, { transientErrors: false }))).toBe('allow');
    // A transient failure between two identical outcomes is skipped: the repeat is stale all the same.
    const between = [...s.step('fetch', { q: 2 }, text('x')), ...s.failing('fetch', { q: 2 }, 'rate limit'), ...s.step('fetch', { q: 2 }, text('x'))];
    expect(decided(between, s.call('fetch', { q: 2 }))).toBe('block no_progress 2');
  });

  it('blocks the second call to a tool that does not exist (unknown_tool_repeat, count 1)', () => {
    const s = script();
    const { decisions } = given(toolLoopSpec(config()), s.failing('deploy_app', { t: 1 }, 'Unknown tool: deploy_app')).when(s.call('deploy_app', { t: 1 }));
    expect(decisions.map(label)).toEqual(['block unknown_tool_repeat 1']);
    expect((decisions[0] as ToolDecision).message).toContain('called 1 time in a row');
  });

  it('counts the unknown-tool streak of the identity, and lets a deterministic error repeat only once', () => {
    const s = script();
    const history = [...s.failing('read', { path: 'a' }, 'ENOENT: no such file'), ...s.failing('read', { path: 'a' }, 'ENOENT: no such file')];
    expect(decided(history, s.call('read', { path: 'a' }))).toBe('block no_progress 2');
  });
});

describe('early preset: cycles', () => {
  const cycle = (k: number, rounds: number) => {
    const calls: Array<readonly [string, unknown, unknown]> = [];
    for (let i = 0; i < k * rounds; i++) calls.push([`t${i % k}`, { i: i % k }, text(`r${i % k}`)]);
    return closedLoop(calls);
  };
  it('stops a ping-pong (a cycle of 2) at its 4th call: nothing since the last A made progress', () => {
    expect(cycle(2, 3)).toEqual(['allow', 'allow', 'allow', 'block no_progress 2', 'block no_progress 2', 'block no_progress 2']);
  });
  it('stops a cycle of 3 at its 6th call (count 3)', () => {
    expect(cycle(3, 2)).toEqual(['allow', 'allow', 'allow', 'allow', 'allow', 'block no_progress 3']);
  });
  it('stops a cycle of 4 at its 7th call: the two calls before repeat the two before its last round (cycle_no_progress, count 4)', () => {
    // Then the 8th: its last outcome was new, and the two calls since were stale.
    expect(cycle(4, 2)).toEqual(['allow', 'allow', 'allow', 'allow', 'allow', 'allow', 'block cycle_no_progress 4', 'block no_progress 3']);
  });
  it('lets a cycle run whose outcomes change (a read, edit, read that shows the edit)', () => {
    const calls: Array<readonly [string, unknown, unknown]> = [];
    for (let i = 0; i < 12; i++) calls.push(['read', { p: 'f' }, text(`v${i}`)], ['edit', { p: 'f', line: i }, text('ok')], ['test', {}, text(i < 11 ? 'FAIL' : 'PASS')]);
    expect(new Set(closedLoop(calls))).toEqual(new Set(['allow']));
  });
});

describe('early preset: call identity', () => {
  it('takes arguments that differ in case, spacing, end marks and path spelling for one call', () => {
    const paths = closedLoop([
      ['read', { path: './src/a.ts' }, text('x')],
      ['read', { path: 'src//A.ts ' }, text('x')],
      ['read', { path: 'src/a.ts/' }, text('x')],
    ]);
    expect(paths).toEqual(['allow', 'allow', 'block no_progress 2']);
    const queries = closedLoop([
      ['search', { query: 'Why  is it slow?', tags: ['A '] }, text('y')],
      ['search', { query: ' why is it SLOW!', tags: ['a.'] }, text('y')],
      ['search', { query: 'why is it slow...', tags: ['a'] }, text('y')],
    ]);
    expect(queries).toEqual(['allow', 'allow', 'block no_progress 2']);
    // Through arrays and objects; a string and an object holding it are other arguments.
    const s = script();
    const twice = [...s.step('search', { query: 'q', tags: ['a'] }, text('y')), ...s.step('search', { query: 'q', tags: ['a'] }, text('y'))];
    expect(decided(twice, s.call('search', { query: 'q', tags: [{ t: 'a' }] }))).toBe('allow');
  });

  it('restricts the identity to a loopKey from the config (§4.3 pattern selection), the agent’s map for events that name it', () => {
    const policy = { tools: { 'web_*': { loopKey: ['query'] } }, agents: { strict: { tools: { web_search: { loopKey: ['query', 'requestId'] } } } } };
    const calls = (agentId?: string) =>
      closedLoop(
        [0, 1, 2].map((i) => ['web_search', { query: 'loopguard', requestId: `r${i}`, ...(agentId ? {} : {}) }, text('hits')] as const),
        config({}, policy),
      );
    expect(calls()).toEqual(['allow', 'allow', 'block no_progress 2']);
    const s = script();
    const step = (i: number) => [
      s.call('web_search', { query: 'q', requestId: i }, { agentId: 'strict' }),
      s.outcome(i + 1, 'web_search', { query: 'q', requestId: i }, { agentId: 'strict', result: text('hits') }),
    ];
    expect(decided([...step(0), ...step(1)], s.call('web_search', { query: 'q', requestId: 2 }, { agentId: 'strict' }), config({}, policy))).toBe('allow');
  });

  it('takes the event’s own loopKey over the config’s', () => {
    const s = script();
    const call = (i: number) => s.call('get', { id: 7, nonce: i }, { loopKey: ['id'] });
    const history = [
      call(0),
      s.outcome(1, 'get', { id: 7, nonce: 0 }, { result: text('x'), loopKey: ['id'] }),
      call(1),
      s.outcome(2, 'get', { id: 7, nonce: 1 }, { result: text('x'), loopKey: ['id'] }),
    ];
    expect(decided(history, call(2), config({}, { tools: { get: { loopKey: false } } }))).toBe('block no_progress 2');
  });

  it('exempts a tool whose loopKey is false, from the config or the event: allowed, not recorded', () => {
    const exempt = closedLoop(times(5, ['now', {}, text('12:00')] as const), config({}, { tools: { now: { loopKey: false } } }));
    expect(exempt).toEqual(times(5, 'allow'));
    const s = script();
    const call = () => s.call('now', {}, { loopKey: false });
    const history = [call(), s.outcome(1, 'now', {}, { result: text('t'), loopKey: false }), call(), s.outcome(2, 'now', {}, { result: text('t'), loopKey: false })];
    const after = given(toolLoopSpec(config()), history).when(call());
    expect(after.decisions.map(label)).toEqual(['allow']);
    expect(after.state.history).toEqual([]);
  });

  it('refuses a loopKey that is not false or a bounded list of names, naming the field', () => {
    const p = toolLoopSpec(config());
    for (const loopKey of [true, 'id', [1], Array.from({ length: 65 }, (_, i) => `f${i}`), ['x'.repeat(257)]]) {
      const s = script();
      expect(() => given(p, []).when(s.call('get', {}, { loopKey }))).toThrow(/loopKey: must be false or an array of at most 64 field names/);
    }
  });
});

describe('early preset: outcomes', () => {
  it('takes outcomes that differ only in volatile parts for the same outcome', () => {
    const got = closedLoop(
      [0, 1, 2].map(
        (i) => ['status', { svc: 'api' }, { service: 'api', state: 'degraded', checkedAt: `2026-06-0${i + 1}T10:00:00Z`, requestId: `${i}`, durationMs: i * 7 }] as const,
      ),
    );
    expect(got).toEqual(['allow', 'allow', 'block no_progress 2']);
  });

  it('sees progress in an outcome’s images and structured content', () => {
    const got = closedLoop([0, 1, 2, 3].map((i) => ['shot', {}, { value: { content: [{ type: 'image', data: `AAA${i}`, mimeType: 'image/png' }] } }] as const));
    expect(got).toEqual(times(4, 'allow'));
  });

  it('records an outcome whose call it never saw, as §2.3 does', () => {
    const s = script();
    const history = [s.outcome(99, 'read', { path: 'a' }, { result: text('x') }), ...s.step('read', { path: 'a' }, text('x'))];
    expect(decided(history, s.call('read', { path: 'a' }))).toBe('block no_progress 2');
  });

  it('keeps historySize records', () => {
    const s = script();
    const history = [...s.step('a', {}, text('x')), ...s.step('a', {}, text('x')), ...s.step('b', {}, text('1')), ...s.step('c', {}, text('2'))];
    expect(decided(history, s.call('a', {}), config({ historySize: 2 }))).toBe('allow');
    expect(decided(history, s.call('a', {}), config({ historySize: 4 }))).toBe('allow');
    expect(decided(history.slice(0, 4), s.call('a', {}), config({ historySize: 2 }))).toBe('block no_progress 2');
  });
});

describe('early preset: what stays', () => {
  it('does nothing unless enabled is true, and keeps no records', () => {
    for (const enabled of [undefined, false]) {
      const got = closedLoop(times(5, ['read', { path: 'a' }, text('x')] as const), config({ enabled }));
      expect(got).toEqual(times(5, 'allow'));
    }
  });

  it('marks its blocks shadow in shadow mode, and keeps deciding as in enforce mode', () => {
    const s = script();
    const history = [...s.step('read', {}, text('x')), ...s.step('read', {}, text('x'))];
    const { decisions } = given(toolLoopSpec(config({}, { mode: 'shadow' })), history).when(s.call('read', {}));
    expect(decisions.map((d) => [label(d), (d as ToolDecision).shadow])).toEqual([['block no_progress 2', true]]);
  });

  it('counts its blocks for escalation, and applies budgets after its own blocks', () => {
    const got = closedLoop(times(5, ['read', { path: 'a' }, text('x')] as const), config({}, { escalation: { abortAfterBlocks: 2 } }));
    expect(got).toEqual(['allow', 'allow', 'block no_progress 2', 'block no_progress 2 + abort block_escalation 2', 'block block_escalation 2']);
    const budget = closedLoop(
      [0, 1, 2].map((i) => ['read', { path: `${i}` }, text(`${i}`)] as const),
      config({}, { budgets: { maxCalls: 2 } }),
    );
    expect(budget).toEqual(['allow', 'allow', 'block run_call_budget 2']);
  });

  it('spends nothing for a duplicate of its turn', () => {
    const s = script();
    const turn = [s.call('read', { p: 1 }, { turnId: 't' }), s.call('read', { p: 1 }, { turnId: 't' })];
    expect(decided(turn, s.call('ls', {}), config({}, { budgets: { maxCalls: 2 } }))).toBe('allow');
  });

  it('keeps the post-compaction guard (§2.6)', () => {
    const s = script();
    const history = [s.compaction(), ...s.step('a', {}, text('x')), ...s.step('a', {}, text('x'), 40_000)];
    const { decisions } = given(toolLoopSpec(config()), [...history, s.call('a', {}, {}, 40_000)]).when(s.outcome(3, 'a', {}, { result: text('x') }));
    expect(decisions.map(label)).toEqual(['abort compaction_loop_persisted 3']);
  });

  it('keeps exempt tools out (§4.3)', () => {
    expect(closedLoop(times(4, ['ping', {}, text('pong')] as const), config({}, { tools: { ping: { exempt: true } } }))).toEqual(times(4, 'allow'));
  });
});
