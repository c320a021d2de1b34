// The openclaw profile's rules (docs/behaviour.md §6) for one run: what it records, counts and
// shows that §2's rules do not. The differential test (test/openclawDifferential.test.ts) holds
// it against the package itself; these pin each rule down one at a time.
import { describe, expect, it } from 'vitest';
import { given } from '../../kernel/spec.js';
import { fold } from '../../kernel/process.js';
import type { ToolLoopConfig } from '../config.js';
import { hashArgs } from '../hashing.js';
import type { ToolDecision, ToolLoopDecision } from '../react.js';
import { runEvents, toolLoopSpec, type RawToolEvent } from '../testing/events.js';

const config = (block: ToolLoopConfig['global'] = {}, policy?: ToolLoopConfig['policy']): ToolLoopConfig => ({
  global: { enabled: true, profile: 'openclaw', ...block },
  agents: {},
  runTtlMs: 86_400_000,
  ...(policy ? { policy } : {}),
});
const same = { content: [{ type: 'text', text: 'same' }] };

/** Each call's decision as `class detector count` (and `!` when the warning notifies). */
function play(events: readonly RawToolEvent[], cfg = config()): string[] {
  const p = toolLoopSpec(cfg);
  const out: string[] = [];
  let s = p.initialState;
  for (const e of events) {
    const r = fold(p, s, [e]);
    s = r.state;
    for (const d of r.decisions) out.push(label(d));
  }
  return out;
}

const label = (d: ToolLoopDecision): string =>
  d.type === 'run_abort'
    ? `abort ${d.detector} ${d.count}`
    : d.decision === 'allow'
      ? 'allow'
      : `${d.decision} ${d.detector} ${d.count}${d.decision === 'warn' && d.notify ? '!' : ''}`;

/** A call followed by its outcome when it is not blocked: the closed loop a runner makes. */
function closedLoop(n: number, toolName: string, args: unknown, result: (i: number) => unknown, cfg = config(), r = runEvents()): string[] {
  const p = toolLoopSpec(cfg);
  let s = p.initialState;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const c = fold(p, s, [r.call(toolName, args)]);
    s = c.state;
    const d = c.decisions[0] as ToolDecision;
    out.push(label(d));
    if (d.decision !== 'block') s = fold(p, s, [r.outcome(toolName, args, result(i))]).state;
  }
  return out;
}

describe('openclaw profile: blocked calls count', () => {
  it('blocks the 21st identical call, and the 31st through the global breaker, its blocked retries counted', () => {
    const got = closedLoop(32, 'read', { path: 'a' }, () => same);
    expect(got[9]).toBe('allow');
    expect(got[10]).toBe('warn generic_repeat 10!');
    expect(got[19]).toBe('warn generic_repeat 19');
    expect(got[20]).toBe('block generic_repeat 20');
    expect(got[29]).toBe('block generic_repeat 29');
    expect(got[30]).toBe('block global_circuit_breaker 30');
  });

  it('lets a veto end an unknown-tool streak: after a block, the next call is warned, not blocked', () => {
    const got = closedLoop(13, 'tool_call', { id: 'gone' }, () => ({ details: {}, content: [] }));
    expect(got).toHaveLength(13);
    const p = toolLoopSpec(config());
    const r = runEvents();
    const events: RawToolEvent[] = [];
    for (let i = 0; i < 10; i++) events.push(r.call('tool_call', { id: 'gone' }), r.error('tool_call', { id: 'gone' }, 'Unknown tool: gone'));
    const decisions = given(p, events)
      .whenAll([r.call('tool_call', { id: 'gone' }), r.call('tool_call', { id: 'gone' })])
      .map(label);
    expect(decisions).toEqual(['block unknown_tool_repeat 10', 'warn generic_repeat 11!']);
  });

  it('keeps a ping-pong going after its block, the veto no evidence of no progress', () => {
    const r = runEvents();
    const events: RawToolEvent[] = [];
    for (let i = 0; i < 19; i++) {
      const a = i % 2 === 0;
      events.push(r.call('read', { p: a ? 'a' : 'b' }), r.outcome('read', { p: a ? 'a' : 'b' }, a ? 'A' : 'B'));
    }
    expect(
      given(toolLoopSpec(config()), events)
        .whenAll([r.call('read', { p: 'b' }), r.call('read', { p: 'a' })])
        .map(label),
    ).toEqual(['block ping_pong 20', 'warn ping_pong 21!']);
  });
});

describe('openclaw profile: more rules', () => {
  it('warns of argument churn at 10: one tool cycling through argument sets that fail the same way', () => {
    const r = runEvents();
    const events: RawToolEvent[] = [];
    for (let i = 0; i < 9; i++) events.push(r.call('read', { p: i % 3 }), r.error('read', { p: i % 3 }, 'ENOENT'));
    // Nine failures of three argument sets: not yet ten.
    expect(play([...events, r.call('read', { p: 0 })]).at(-1)).toBe('allow');
    const more = [...events, r.call('read', { p: 0 }), r.error('read', { p: 0 }, 'ENOENT'), r.call('read', { p: 1 })];
    expect(play(more).at(-1)).toBe('warn argument_churn 10!');
  });

  it('blocks 20 different commands that fail the same way, the volatile parts aside', () => {
    const failure = (i: number) => {
      const output = `connect refused (pid ${100 + i})`;
      return { content: [{ type: 'text', text: output }], details: { status: 'failed', exitCode: 1, aggregated: output } };
    };
    const r = runEvents();
    const events: RawToolEvent[] = [];
    for (let i = 0; i < 20; i++) events.push(r.call('exec', { command: `deploy ${i}` }), r.outcome('exec', { command: `deploy ${i}` }, failure(i)));
    expect(play([...events, r.call('exec', { command: 'deploy 20' })]).at(-1)).toBe('block generic_repeat 20');
    // §2's rules see 20 different calls.
    expect(play([...events, r.call('exec', { command: 'deploy 20' })], { global: { enabled: true }, agents: {}, runTtlMs: 86_400_000 }).at(-1)).toBe('allow');
  });

  it('detects on the policy name: Bash and exec are one tool', () => {
    const r = runEvents();
    const events: RawToolEvent[] = [];
    for (let i = 0; i < 10; i++) events.push(r.call(i % 2 ? 'Bash' : 'EXEC', { command: 'ls' }));
    expect(play([...events, r.call('exec', { command: 'ls' })]).at(-1)).toBe('warn generic_repeat 10!');
  });

  it('shows a warning when its count reaches a new ten, per warning key', () => {
    const got = closedLoop(45, 'search', { q: 'x' }, (i) => `page ${i}`);
    const shown = got.filter((g) => g.endsWith('!'));
    expect(shown).toEqual(['warn generic_repeat 10!', 'warn generic_repeat 20!', 'warn generic_repeat 30!']);
  });

  it('takes thresholds set beside the profile over its own: 6 / 10 / 16', () => {
    const got = closedLoop(18, 'read', { path: 'a' }, () => same, config({ warningThreshold: 6, criticalThreshold: 10, globalCircuitBreakerThreshold: 16 }));
    expect(got.slice(5, 7)).toEqual(['allow', 'warn generic_repeat 6!']);
    expect(got[10]).toBe('block generic_repeat 10');
    expect(got[16]).toBe('block global_circuit_breaker 16');
    // Buckets follow the warning threshold: shown at 6 and 12, not at 10.
    const changing = closedLoop(14, 'search', { q: 'x' }, (i) => `page ${i}`, config({ warningThreshold: 6, criticalThreshold: 10 }));
    expect(changing.filter((g) => g.endsWith('!'))).toEqual(['warn generic_repeat 6!', 'warn generic_repeat 12!']);
  });

  it('records an outcome echo of its own block as nothing, and the host’s own veto as a veto', () => {
    const r = runEvents();
    const blocked = { details: { status: 'blocked', deniedReason: 'tool-loop' } };
    const events: RawToolEvent[] = [];
    for (let i = 0; i < 19; i++) events.push(r.call('read', { p: 1 }), r.outcome('read', { p: 1 }, 'same'));
    // The host vetoed a call loopguard never saw: it counts.
    const withVeto = [...events, r.outcome('read', { p: 1 }, blocked, { toolCallId: 'host-1' })];
    expect(play([...withVeto, r.call('read', { p: 1 })]).at(-1)).toBe('block generic_repeat 20');
    // Its own block echoed back (same toolCallId as the call it blocked) adds nothing.
    const p = toolLoopSpec(config());
    const twenty = [...events, r.call('read', { p: 1 }), r.outcome('read', { p: 1 }, 'same')];
    const s = fold(p, p.initialState, twenty).state;
    const block = r.call('read', { p: 1 });
    const afterBlock = fold(p, s, [block]);
    expect(label(afterBlock.decisions[0]!)).toBe('block generic_repeat 20');
    const echo = r.outcome('read', { p: 1 }, blocked, { toolCallId: block.toolCallId });
    expect(fold(p, afterBlock.state, [echo]).state.history).toEqual(afterBlock.state.history);
  });

  it('takes the profile’s facts from a runner that hashes: a veto with no hash counts as one', () => {
    const r = runEvents();
    const events: RawToolEvent[] = [];
    for (let i = 0; i < 19; i++) events.push(r.call('read', { p: 1 }), r.outcome('read', { p: 1 }, 'same'));
    const veto = {
      type: 'tool_outcome',
      ts: 1_700_000_900_000,
      sessionKey: 's',
      runId: 'run-1',
      toolCallId: 'host-2',
      toolName: 'read',
      argsHash: hashArgs('read', { p: 1 }),
      openclaw: { veto: true },
    };
    expect(play([...events, veto, { ...r.call('read', { p: 1 }), ts: 1_700_000_901_000 }]).at(-1)).toBe('block generic_repeat 20');
  });

  it('refuses nothing by itself when detection is off: every call allowed, the compaction guard on', () => {
    const r = runEvents();
    const events: RawToolEvent[] = [r.compaction()];
    for (let i = 0; i < 3; i++) events.push(r.call('read', { p: 1 }), r.outcome('read', { p: 1 }, 'same'));
    expect(play(events, config({ enabled: undefined }))).toEqual(['allow', 'allow', 'allow', 'abort compaction_loop_persisted 3']);
  });
});

describe('openclaw profile: turns', () => {
  const turn = (r: ReturnType<typeof runEvents>, turnId: string, args: readonly unknown[]) => args.map((a) => r.call('read', a, { turnId }));

  it('counts a turn’s earlier calls as vetoes while it decides the later ones', () => {
    const r = runEvents();
    const events: RawToolEvent[] = [];
    for (let i = 0; i < 8; i++) events.push(r.call('read', { p: 1 }), r.outcome('read', { p: 1 }, 'same'));
    expect(
      given(toolLoopSpec(config()), events)
        .whenAll(turn(r, 't1', [{ p: 1 }, { p: 1 }, { p: 1 }]))
        .map(label),
    ).toEqual(['allow', 'allow', 'warn generic_repeat 10!']);
  });

  it('blocks a turn at its critical call: the later calls are not run, the trigger’s arguments vetoed; a second such turn ends the run', () => {
    const r = runEvents();
    const events: RawToolEvent[] = [];
    for (let i = 0; i < 20; i++) events.push(r.call('read', { p: 1 }), r.outcome('read', { p: 1 }, 'same'));
    const p = toolLoopSpec(config());
    const first = given(p, events).when(turn(r, 't1', [{ p: 2 }, { p: 1 }, { p: 3 }, { p: 1 }])[0]!);
    expect(first.decisions.map(label)).toEqual(['allow']);
    const rest = fold(p, first.state, turn(r, 't1', [{ p: 1 }, { p: 3 }, { p: 1 }]));
    const decided = rest.decisions as ToolDecision[];
    expect(decided.map(label)).toEqual(['block generic_repeat 20', 'block generic_repeat 20', 'block generic_repeat 20']);
    expect(decided.map((d) => d.turnBlockedBy)).toEqual([null, decided[0]!.toolCallId, decided[0]!.toolCallId]);
    // The turn's record: vetoes for the trigger's arguments only; the allowed first call is gone.
    const kinds = rest.state.history.slice(-3).map((h) => [JSON.stringify(h.argsHash.slice(0, 5)), (h as { kind?: string }).kind]);
    expect(kinds).toEqual([
      ['"read:"', undefined],
      ['"read:"', 'veto'],
      ['"read:"', 'veto'],
    ]);
    expect(rest.state.history).toHaveLength(22);
    const second = fold(p, rest.state, turn(r, 't2', [{ p: 1 }])).decisions.map(label);
    expect(second).toEqual(['block generic_repeat 22', 'abort critical_loop_repeated 2']);
  });

  it('vetoes a single call without a turn, and the run goes on', () => {
    const r = runEvents();
    const events: RawToolEvent[] = [];
    for (let i = 0; i < 20; i++) events.push(r.call('read', { p: 1 }), r.outcome('read', { p: 1 }, 'same'));
    expect(
      given(toolLoopSpec(config()), events)
        .whenAll([r.call('read', { p: 1 }), r.call('read', { p: 1 }), r.call('read', { p: 2 })])
        .map(label),
    ).toEqual(['block generic_repeat 20', 'block generic_repeat 21', 'allow']);
  });
});

describe('profile config', () => {
  it('keeps §2 as it is without a profile', () => {
    const got = closedLoop(22, 'read', { path: 'a' }, () => same, { global: { enabled: true }, agents: {}, runTtlMs: 86_400_000 });
    expect(got[20]).toBe('block generic_repeat 20');
    expect(got[21]).toBe('block generic_repeat 20');
  });
});

describe('openclaw profile: bounds', () => {
  it('keeps at most 1,000 records while a turn is open, however many calls it asks for', () => {
    const r = runEvents();
    const p = toolLoopSpec(config());
    const calls = Array.from({ length: 1_200 }, (_, i) => r.call('read', { i }, { turnId: 'huge' }));
    const s = fold(p, p.initialState, calls).state;
    expect(s.history).toHaveLength(1_000);
    // The next change trims it to the history size.
    expect(fold(p, s, [r.call('read', { i: 'next' })]).state.history).toHaveLength(30);
  });
});
