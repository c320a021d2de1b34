import { describe, expect, it } from 'vitest';
import { given } from '../kernel/spec.js';
import { fold } from '../kernel/process.js';
import type { ToolDecision, ToolLoopConfig, LoopDetectionBlock } from './index.js';
import { noteWarning, shouldNotify, MAX_WARNING_KEYS } from './state.js';
import { hashOutcome } from './hashing.js';
import { runEvents, toolLoopSpec as toolLoopProcess, type RawToolEvent as ToolEvent } from './testing/events.js';

const cfg = (global: LoopDetectionBlock = { enabled: true }, agents: Record<string, LoopDetectionBlock> = {}, runTtlMs = 86_400_000): ToolLoopConfig => ({
  global,
  agents,
  runTtlMs,
});
const enabled = toolLoopProcess(cfg());
const only = (ds: readonly unknown[]) => {
  expect(ds).toHaveLength(1);
  return ds[0] as ToolDecision;
};
const calls = (ds: readonly unknown[]) => ds.filter((d): d is ToolDecision => (d as ToolDecision).type === 'tool_decision');
const same = () => ({ content: [{ type: 'text', text: 'same file' }] });

describe('generic repeat', () => {
  it('warns on the 11th identical call with count 10 and tells the runner to notify', () => {
    const r = runEvents();
    given(enabled, r.repeat(10, 'read', { path: '/a' }, same))
      .when(r.call('read', { path: '/a' }))
      .then((ds) => {
        const d = only(ds);
        expect(d).toMatchObject({ decision: 'warn', detector: 'generic_repeat', level: 'warning', count: 10, notify: true, toolName: 'read', runId: 'run-1' });
        expect(d.message).toContain('read');
        expect(d.message).toContain('10');
        expect(d.message).toContain('generic_repeat');
      });
  });
  it('allows the first 10 identical calls', () => {
    const r = runEvents();
    const ds = calls(given(enabled).whenAll(r.repeat(10, 'read', { path: '/a' }, same)));
    expect(ds.map((d) => d.decision)).toEqual(Array(10).fill('allow'));
  });
  it('blocks the 21st identical call with identical outcomes (count 20), and every retry after it', () => {
    const r = runEvents();
    const echoedBlock = () => r.outcome('read', { path: '/a' }, { details: { status: 'blocked', deniedReason: 'tool-loop' } });
    const ds = calls(
      given(enabled).whenAll([
        ...r.repeat(20, 'read', { path: '/a' }, same),
        r.call('read', { path: '/a' }),
        echoedBlock(),
        r.call('read', { path: '/a' }),
        r.call('read', { path: '/a' }),
      ]),
    );
    expect(ds[19]).toMatchObject({ decision: 'warn', count: 19 });
    expect(ds[20]).toMatchObject({ decision: 'block', detector: 'generic_repeat', level: 'critical', count: 20, notify: true });
    expect(ds[21]).toMatchObject({ decision: 'block', count: 20 });
    expect(ds[22]).toMatchObject({ decision: 'block', count: 20 });
  });
  it('only warns when the outcome keeps changing', () => {
    const r = runEvents();
    const ds = calls(given(enabled).whenAll(r.repeat(40, 'exec', { command: 'make' }, (i) => ({ details: { status: 'completed', exitCode: 0, aggregated: `run ${i}` } }))));
    expect(ds.filter((d) => d.decision === 'block')).toHaveLength(0);
    expect(ds[10]).toMatchObject({ decision: 'warn', count: 10 });
    expect(ds[39]).toMatchObject({ decision: 'warn', count: 30 });
  });
  it('never blocks a plain JSON result that changes at every call, and blocks the same JSON at the 21st', () => {
    const r = runEvents();
    const poll = (progress: number) => ({ state: 'rolling', progress });
    const moving = calls(given(enabled).whenAll(r.repeat(40, 'deploy_status', { id: 'd1' }, (i) => poll(i))));
    expect(moving.filter((d) => d.decision === 'block')).toHaveLength(0);
    const q = runEvents('run-2');
    const stuck = calls(given(enabled).whenAll([...q.repeat(20, 'deploy_status', { id: 'd1' }, () => poll(40)), q.call('deploy_status', { id: 'd1' })]));
    expect(stuck[20]).toMatchObject({ decision: 'block', detector: 'generic_repeat', count: 20 });
  });
  it('notifies at 10, 20, 30 only while the warning grows', () => {
    const r = runEvents();
    const p = toolLoopProcess(cfg({ enabled: true, criticalThreshold: 50, globalCircuitBreakerThreshold: 60, historySize: 60 }));
    const ds = calls(given(p).whenAll(r.repeat(35, 'read', { path: '/a' }, (i) => `r${i}`)));
    const notified = ds.filter((d) => d.notify).map((d) => d.count);
    expect(notified).toEqual([10, 20, 30]);
  });
  it('notifies at 5, 15, 25 with a warning threshold of 5', () => {
    const r = runEvents();
    const p = toolLoopProcess(cfg({ enabled: true, warningThreshold: 5, criticalThreshold: 50, globalCircuitBreakerThreshold: 60, historySize: 60 }));
    const ds = calls(given(p).whenAll(r.repeat(27, 'read', { path: '/a' }, (i) => `r${i}`)));
    expect(ds.filter((d) => d.notify).map((d) => d.count)).toEqual([5, 15, 25]);
  });
  it('counts only within historySize records', () => {
    const r = runEvents();
    const p = toolLoopProcess(cfg({ enabled: true, historySize: 5, warningThreshold: 5 }));
    // each call + outcome pair is one record, so history never holds more than 5 calls
    const ds = calls(given(p).whenAll(r.repeat(30, 'read', { path: '/a' }, (i) => `r${i}`)));
    expect(ds.map((d) => d.count ?? 0).reduce((a, b) => Math.max(a, b))).toBe(5);
  });
  it('is switched off by detectors.genericRepeat: false, leaving the global breaker at 30', () => {
    const r = runEvents();
    const p = toolLoopProcess(cfg({ enabled: true, detectors: { genericRepeat: false } }));
    const ds = calls(given(p).whenAll(r.repeat(31, 'read', { path: '/a' }, same)));
    expect(ds.slice(0, 30).every((d) => d.decision === 'allow')).toBe(true);
    expect(ds[30]).toMatchObject({ decision: 'block', detector: 'global_circuit_breaker', count: 30 });
  });
});

describe('global circuit breaker', () => {
  it('blocks any tool once its no-progress streak reaches the global threshold, even a poll', () => {
    const r = runEvents();
    const p = toolLoopProcess(cfg({ enabled: true, detectors: { knownPollNoProgress: false } }));
    const poll = { action: 'poll', sessionId: 'x' };
    const ds = calls(given(p).whenAll(r.repeat(31, 'process', poll, () => ({ details: { status: 'running' } }))));
    expect(ds[29]?.decision).toBe('allow');
    expect(ds[30]).toMatchObject({ decision: 'block', detector: 'global_circuit_breaker', count: 30 });
  });
});

describe('known poll without progress', () => {
  const poll = { action: 'poll', sessionId: 'p1' };
  const stuck = () => ({ details: { status: 'running', aggregated: 'waiting' } });
  it('warns at 10 and blocks at 20 identical poll results', () => {
    const r = runEvents();
    const ds = calls(given(enabled).whenAll(r.repeat(21, 'process', poll, stuck)));
    expect(ds[9]?.decision).toBe('allow');
    expect(ds[10]).toMatchObject({ decision: 'warn', detector: 'known_poll_no_progress', count: 10, notify: true });
    expect(ds[20]).toMatchObject({ decision: 'block', detector: 'known_poll_no_progress', count: 20 });
  });
  it('keys its warnings by the newest result: a poll stuck again on another result is notified afresh', () => {
    const r = runEvents();
    const result = (i: number) => ({ details: { status: 'running', aggregated: i <= 10 ? 'waiting A' : 'waiting B' } });
    const ds = calls(given(enabled).whenAll(r.repeat(22, 'process', poll, result)));
    expect(ds[10]).toMatchObject({ decision: 'warn', detector: 'known_poll_no_progress', count: 10, notify: true });
    expect(ds[11]).toMatchObject({ decision: 'warn', count: 11, notify: false });
    expect(ds.slice(12, 21).every((d) => d.decision === 'allow')).toBe(true);
    expect(ds[21]).toMatchObject({ decision: 'warn', detector: 'known_poll_no_progress', count: 10, notify: true });
  });
  it('never fires on a poll that makes progress, not even as a generic repeat', () => {
    const r = runEvents();
    const ds = calls(given(enabled).whenAll(r.repeat(40, 'process', poll, (i) => ({ details: { status: 'running', aggregated: `line ${i}` } }))));
    expect(ds.every((d) => d.decision === 'allow')).toBe(true);
  });
  it('classifies command_status and hashed calls that carry `action`', () => {
    const r = runEvents();
    const ds = calls(given(enabled).whenAll(r.repeat(11, 'command_status', { id: 1 }, stuck)));
    expect(ds[10]).toMatchObject({ detector: 'known_poll_no_progress' });
    const h = runEvents('run-h');
    const hashed: ToolEvent[] = [];
    for (let i = 0; i < 11; i++) {
      hashed.push({ ...h.call('process', undefined), args: undefined, argsHash: 'process:abc', action: 'poll' } as ToolEvent);
      hashed.push({ ...h.outcome('process', undefined, undefined), args: undefined, argsHash: 'process:abc', resultHash: 'r1' } as ToolEvent);
    }
    expect(calls(given(enabled).whenAll(hashed))[10]).toMatchObject({ detector: 'known_poll_no_progress', count: 10 });
  });
});

describe('known poll tools (§2.4)', () => {
  it.each([
    ['process', { action: 'poll', id: 1 }, 'known_poll_no_progress'],
    ['process', { action: 'log', id: 1 }, 'known_poll_no_progress'],
    ['process', { action: 'kill', id: 1 }, 'generic_repeat'],
    ['command_status', { id: 1 }, 'known_poll_no_progress'],
  ])('warns the 11th identical %s call %j with %s', (tool, args, detector) => {
    const r = runEvents();
    given(enabled, r.repeat(10, tool, args, same))
      .when(r.call(tool, args))
      .then((ds) => expect(only(ds)).toMatchObject({ decision: 'warn', detector, count: 10 }));
  });
});

describe('ping-pong', () => {
  const a = { path: '/a' };
  const b = { path: '/b' };
  function alternate(r: ReturnType<typeof runEvents>, n: number, resultB: (i: number) => unknown = () => 'B') {
    const out: ToolEvent[] = [];
    for (let i = 0; i < n; i++) {
      const [tool, args, res] = i % 2 === 0 ? ['read', a, 'A'] : ['list', b, resultB(i)];
      out.push(r.call(tool as string, args), r.outcome(tool as string, args, res));
    }
    return out;
  }
  it('warns at 10 and blocks at 20 when both sides keep returning the same', () => {
    const r = runEvents();
    const ds = calls(given(enabled).whenAll(alternate(r, 21)));
    expect(ds[8]?.decision).toBe('allow');
    expect(ds[9]).toMatchObject({ decision: 'warn', detector: 'ping_pong', count: 10, notify: true, toolName: 'list', pairedToolName: 'read' });
    expect(ds[19]).toMatchObject({ decision: 'block', detector: 'ping_pong', count: 20, level: 'critical' });
  });
  it('only warns when one side makes progress', () => {
    const r = runEvents();
    const ds = calls(given(enabled).whenAll(alternate(r, 30, (i) => `B${i}`)));
    expect(ds.filter((d) => d.decision === 'block')).toHaveLength(0);
    expect(ds[25]).toMatchObject({ decision: 'warn', detector: 'ping_pong', count: 26 });
  });
  it('needs the current call to continue the alternation', () => {
    const r = runEvents();
    given(enabled, alternate(r, 12))
      .when(r.call('grep', { q: 1 }))
      .then((ds) => expect(only(ds).decision).toBe('allow'));
  });
});

describe('unknown tool', () => {
  const attempts = (r: ReturnType<typeof runEvents>, n: number) => {
    const history: ToolEvent[] = [];
    for (let i = 0; i < n; i++) history.push(r.call('browse', { url: `u${i}` }), r.error('browse', { url: `u${i}` }, 'Unknown tool: browse'));
    return history;
  };
  // §2.5 rule 1 at the threshold (10) and on each side of it: the streak before the attempt.
  it.each([
    [9, 'allow'],
    [10, 'block'],
    [11, 'block'],
  ])('after a streak of %i failed attempts, the next attempt gets %s', (streak, decision) => {
    const r = runEvents();
    given(enabled, attempts(r, streak))
      .when(r.call('browse', { url: 'again' }))
      .then((ds) => expect(only(ds)).toMatchObject(decision === 'allow' ? { decision } : { decision, detector: 'unknown_tool_repeat', count: streak }));
  });
  it.each([
    [2, 'allow'],
    [3, 'block'],
  ])('with unknownToolThreshold 3, a streak of %i gets %s', (streak, decision) => {
    const r = runEvents();
    given(toolLoopProcess(cfg({ enabled: true, unknownToolThreshold: 3 })), attempts(r, streak))
      .when(r.call('browse', { url: 'again' }))
      .then((ds) => expect(only(ds).decision).toBe(decision));
  });
  it('blocks the 11th attempt at a missing tool', () => {
    const r = runEvents();
    const history: ToolEvent[] = [];
    for (let i = 0; i < 10; i++) history.push(r.call('browse', { url: `u${i}` }), r.error('browse', { url: `u${i}` }, 'Unknown tool: browse'));
    given(enabled, history)
      .when(r.call('browse', { url: 'again' }))
      .then((ds) => {
        expect(only(ds)).toMatchObject({ decision: 'block', detector: 'unknown_tool_repeat', count: 10, level: 'critical', notify: true });
      });
  });
  it('counts hashed outcomes that carry unknownToolName like raw errors', () => {
    const r = runEvents();
    const history: ToolEvent[] = [];
    for (let i = 0; i < 10; i++) {
      const argsHash = `browse:${i}`;
      history.push({ ...r.call('browse', undefined), args: undefined, argsHash } as ToolEvent);
      history.push({ ...r.outcome('browse', undefined, undefined), args: undefined, argsHash, resultHash: 'missing', unknownToolName: 'browse' } as ToolEvent);
    }
    given(enabled, history)
      .when({ ...r.call('browse', undefined), args: undefined, argsHash: 'browse:again' } as ToolEvent)
      .then((ds) => expect(only(ds)).toMatchObject({ decision: 'block', detector: 'unknown_tool_repeat', count: 10 }));
  });
  it('resets the streak when another tool runs in between', () => {
    const r = runEvents();
    const history: ToolEvent[] = [];
    for (let i = 0; i < 10; i++) {
      if (i === 5) history.push(r.call('read', { p: 1 }), r.outcome('read', { p: 1 }, 'ok'));
      history.push(r.call('browse', { url: `u${i}` }), r.error('browse', { url: `u${i}` }, 'Unknown tool: browse'));
    }
    given(enabled, history)
      .when(r.call('browse', { url: 'x' }))
      .then((ds) => expect(only(ds).decision).toBe('allow'));
  });
});

describe('history', () => {
  it('attaches an outcome with a toolCallId only to the record with that id', () => {
    const r = runEvents();
    const events = [r.call('read', { p: 1 }, { toolCallId: 'x' }), r.call('read', { p: 1 }, { toolCallId: 'y' }), r.outcome('read', { p: 1 }, 'same', { toolCallId: 'x' })];
    const s = fold(enabled, enabled.initialState, events).state;
    expect(s.history.map((h) => [h.toolCallId, h.resultHash !== undefined])).toEqual([
      ['x', true],
      ['y', false],
    ]);
  });
  it('appends an outcome with no matching call as a record of its own, and ignores one without a hash', () => {
    const r = runEvents();
    const s = fold(enabled, enabled.initialState, [r.outcome('read', { p: 1 }, 'x'), r.outcome('read', { p: 2 }, undefined)]).state;
    expect(s.history).toHaveLength(1);
    expect(s.history[0]).toMatchObject({ toolName: 'read', resultHash: hashOutcome({ toolName: 'read', result: 'x' })!.resultHash });
  });
  it('never records a blocked call', () => {
    const r = runEvents();
    const s = fold(enabled, enabled.initialState, [...r.repeat(20, 'read', { p: 1 }, same), r.call('read', { p: 1 })]).state;
    expect(s.history).toHaveLength(20);
  });
  it('keeps history when enabled is unset but not when it is false', () => {
    const r = runEvents();
    const events = r.repeat(3, 'read', { p: 1 }, same);
    expect(fold(toolLoopProcess(cfg({})), initial(), events).state.history).toHaveLength(3);
    expect(fold(toolLoopProcess(cfg({ enabled: false })), initial(), events).state.history).toHaveLength(0);
  });
});
const initial = () => enabled.initialState;

describe('when detection is not enabled', () => {
  it('allows every call', () => {
    const r = runEvents();
    for (const p of [toolLoopProcess(cfg({})), toolLoopProcess(cfg({ enabled: false }))]) {
      const ds = calls(given(p).whenAll(r.repeat(40, 'read', { p: 1 }, same)));
      expect(ds.every((d) => d.decision === 'allow')).toBe(true);
    }
  });
});

describe('post-compaction guard', () => {
  const loopAfterCompaction = (r: ReturnType<typeof runEvents>, results: (i: number) => unknown) => [r.compaction(), ...r.repeat(3, 'read', { p: 1 }, results)];
  it('aborts a run whose first 3 outcomes after compaction are one identical triple, even when detection is unset', () => {
    const r = runEvents();
    for (const p of [toolLoopProcess(cfg({})), enabled]) {
      const ds = given(p).whenAll(loopAfterCompaction(r, same));
      const abort = ds.filter((d) => d.type === 'run_abort');
      expect(abort).toHaveLength(1);
      expect(abort[0]).toMatchObject({ type: 'run_abort', detector: 'compaction_loop_persisted', count: 3, toolName: 'read', runId: 'run-1', sessionKey: 's' });
      expect((abort[0] as { message: string }).message).toContain('compaction_loop_persisted');
    }
  });
  it('blocks every later call of an aborted run, whatever the config', () => {
    const r = runEvents();
    given(toolLoopProcess(cfg({})), loopAfterCompaction(r, same))
      .when(r.call('write', { p: 2 }))
      .then((ds) => {
        expect(only(ds)).toMatchObject({ decision: 'block', detector: 'compaction_loop_persisted', count: 3, notify: true });
      });
  });
  it('does not abort when results change, and disarms after the window', () => {
    const r = runEvents();
    const ds = given(enabled).whenAll([...loopAfterCompaction(r, (i) => `v${i}`), ...r.repeat(3, 'read', { p: 1 }, same)]);
    expect(ds.filter((d) => d.type === 'run_abort')).toHaveLength(0);
  });
  it('is switched off only by enabled: false', () => {
    const r = runEvents();
    const ds = given(toolLoopProcess(cfg({ enabled: false }))).whenAll(loopAfterCompaction(r, same));
    expect(ds.filter((d) => d.type === 'run_abort')).toHaveLength(0);
  });
  it('restarts the window when compaction happens again', () => {
    const r = runEvents();
    const p = toolLoopProcess(cfg({ postCompactionGuard: { windowSize: 2 } }));
    const ds = given(p).whenAll([
      r.compaction(),
      ...r.repeat(1, 'read', { p: 1 }, same),
      r.compaction(),
      ...r.repeat(1, 'read', { p: 1 }, same),
      ...r.repeat(1, 'read', { p: 1 }, same),
    ]);
    expect(ds.filter((d) => d.type === 'run_abort')).toMatchObject([{ count: 2 }]);
  });
});

describe('run end and idle runs', () => {
  it('calls a run state empty (its changelog entry deleted once committed) only when it holds nothing', () => {
    const r = runEvents();
    expect(enabled.isEmpty(initial())).toBe(true);
    expect(enabled.isEmpty(fold(enabled, initial(), [r.call('read', { p: 1 })]).state)).toBe(false);
    expect(enabled.isEmpty(fold(enabled, initial(), [{ ...r.compaction(), eventId: 'c1' }]).state)).toBe(false);
  });
  it('drops the run state on run_end', () => {
    const r = runEvents();
    const s = fold(enabled, initial(), [...r.repeat(12, 'read', { p: 1 }, same), r.runEnd()]).state;
    expect(enabled.isEmpty(s)).toBe(true);
    given(enabled, [...r.repeat(12, 'read', { p: 1 }, same), r.runEnd()])
      .when(r.call('read', { p: 1 }))
      .then((ds) => expect(only(ds).decision).toBe('allow'));
  });
  it('starts a run fresh when its previous event is older than the TTL', () => {
    const r = runEvents();
    const p = toolLoopProcess(cfg({ enabled: true }, {}, 60_000));
    const history = r.repeat(12, 'read', { p: 1 }, same);
    r.advance(60_001);
    given(p, history)
      .when(r.call('read', { p: 1 }))
      .then((ds) => expect(only(ds).decision).toBe('allow'));
    expect(p.isExpired(fold(p, p.initialState, history).state, history.at(-1)!.ts + 60_001)).toBe(true);
  });
  // §2.7: "older than the TTL" — a gap of exactly the TTL keeps the run, one millisecond more
  // starts it fresh. The 13th identical call is warned in a kept run, allowed in a fresh one.
  it.each([
    [59_999, 'warn', false],
    [60_000, 'warn', false],
    [60_001, 'allow', true],
  ])('after a gap of %i ms (TTL 60 000 ms) the next call gets %s', (gap, decision, expired) => {
    const r = runEvents();
    const p = toolLoopProcess(cfg({ enabled: true }, {}, 60_000));
    const history = r.repeat(12, 'read', { p: 1 }, same);
    const last = history.at(-1)!.ts;
    given(p, history)
      .when({ ...r.call('read', { p: 1 }), ts: last + gap })
      .then((ds) => expect(only(ds).decision).toBe(decision));
    expect(p.isExpired(fold(p, p.initialState, history).state, last + gap)).toBe(expired);
  });
});

describe('redelivery', () => {
  it('gives a redelivered call its original decision and changes nothing', () => {
    const r = runEvents();
    const history = r.repeat(10, 'read', { p: 1 }, same);
    const call = { ...r.call('read', { p: 1 }), eventId: 'e-11' } as ToolEvent;
    const first = given(enabled, history).when(call);
    const again = given(enabled, [...history, call]).when(call);
    expect(again.decisions).toEqual(first.decisions);
    expect(again.state.history).toEqual(first.state.history);
  });
  it('ignores a redelivered outcome or compaction', () => {
    const r = runEvents();
    const out = { ...r.outcome('read', { p: 1 }, 'x'), eventId: 'o1' } as ToolEvent;
    const s1 = fold(enabled, initial(), [out]).state;
    const s2 = fold(enabled, s1, [out]).state;
    expect(s2.history).toEqual(s1.history);
  });
});

describe('per-agent config', () => {
  it('takes the agent from the first event that names one, for the whole run', () => {
    const r = runEvents();
    const p = toolLoopProcess(cfg({}, { strict: { enabled: true, warningThreshold: 2 } }));
    const events = [r.call('read', { p: 1 }, { agentId: 'strict' }), r.outcome('read', { p: 1 }, 'x'), r.call('read', { p: 1 }), r.outcome('read', { p: 1 }, 'x')];
    given(p, events)
      .when(r.call('read', { p: 1 }, { agentId: 'other' }))
      .then((ds) => expect(only(ds)).toMatchObject({ decision: 'warn', count: 2 }));
  });
  it('uses the global block for runs without an agent', () => {
    const r = runEvents();
    const p = toolLoopProcess(cfg({}, { strict: { enabled: true, warningThreshold: 2 } }));
    given(p, r.repeat(5, 'read', { p: 1 }, same))
      .when(r.call('read', { p: 1 }))
      .then((ds) => expect(only(ds).decision).toBe('allow'));
  });
});

describe('warning keys', () => {
  it(`keeps at most ${MAX_WARNING_KEYS} keys, evicting the first inserted`, () => {
    let w: ReadonlyArray<readonly [string, number]> = [];
    for (let i = 0; i < MAX_WARNING_KEYS + 1; i++) w = noteWarning(w, `k${i}`, 10);
    expect(w).toHaveLength(MAX_WARNING_KEYS);
    expect(w[0]?.[0]).toBe('k1');
    expect(shouldNotify(w, 'k0', 11)).toBe(true);
    expect(shouldNotify(w, 'k5', 19)).toBe(false);
    expect(shouldNotify(w, 'k5', 20)).toBe(true);
  });
});
