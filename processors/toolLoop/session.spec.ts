// Tool events keyed by session (docs/behaviour.md §6): one state per session, its runs distinct
// inside it; the openclaw profile's history shared by them.
import { describe, expect, it } from 'vitest';
import { fold } from '../kernel/process.js';
import type { ToolLoopConfig } from './config.js';
import type { ToolDecision, ToolLoopDecision } from './react.js';
import { MAX_RUNS_PER_SESSION } from './session.js';
import { runEvents, toolLoopSessionSpec, toolLoopSpec, type RawToolEvent } from './testing/events.js';

const profile = (extra: Partial<ToolLoopConfig> = {}): ToolLoopConfig => ({
  global: { enabled: true, profile: 'openclaw' },
  agents: {},
  runTtlMs: 86_400_000,
  keyBy: 'session',
  ...extra,
});

const label = (d: ToolLoopDecision): string => (d.type === 'run_abort' ? `${d.key} abort ${d.detector}` : `${d.key} ${d.decision}${d.detector ? ` ${d.detector} ${d.count}` : ''}`);

/** Two runs of session `s` taking turns, each repeating its own call with its own result. */
function interleaved(n: number): RawToolEvent[] {
  const runs = [runEvents('r1'), runEvents('r2', 1_700_000_000_500)];
  const out: RawToolEvent[] = [];
  for (let i = 0; i < n; i++) {
    const r = runs[i % 2]!;
    const run = i % 2 === 0 ? 'a' : 'b';
    out.push(r.call('read', { run }), r.outcome('read', { run }, 'same'));
  }
  return out;
}

describe('tool events keyed by session', () => {
  it('keys by session and names the run in each decision', () => {
    const p = toolLoopSessionSpec(profile());
    const e = runEvents('r7').call('read', {});
    expect(p.keyOf(e)).toBe('s');
    expect((fold(p, p.initialState, [e]).decisions[0] as ToolDecision).key).toBe('r7');
  });

  it('shares 30 records among the runs of a session, each run detecting on its own', () => {
    const events = [...interleaved(40), runEvents('r1', 1_700_000_100_000).call('read', { run: 'a' })];
    // 15 of r1's 20 calls are among the session's newest 30 records.
    expect(fold(toolLoopSessionSpec(profile()), toolLoopSessionSpec(profile()).initialState, events).decisions.map(label).at(-1)).toBe('r1 warn generic_repeat 15');
    // Keyed by run, each run keeps 30 of its own.
    const byRun = toolLoopSpec(profile({ keyBy: undefined }));
    const states = new Map<string, unknown>();
    let last = '';
    for (const e of events) {
      const k = byRun.keyOf(e);
      const r = fold(byRun, (states.get(k) ?? byRun.initialState) as never, [e]);
      states.set(k, r.state);
      for (const d of r.decisions) last = label(d);
    }
    expect(last).toBe('r1 block generic_repeat 20');
  });

  it('keeps an ended run’s records until they age out, and forgets the run', () => {
    const p = toolLoopSessionSpec(profile());
    const r1 = runEvents('r1');
    const events: RawToolEvent[] = [];
    for (let i = 0; i < 20; i++) events.push(r1.call('read', { p: 1 }), r1.outcome('read', { p: 1 }, 'x'));
    events.push(r1.runEnd());
    const s = fold(p, p.initialState, events).state;
    expect(s.history).toHaveLength(20);
    expect(s.runs).toEqual([]);
  });

  it('keeps runs apart: one run’s abort and escalation, its event ids', () => {
    const cfg = profile({ policy: { escalation: { abortAfterBlocks: 1 } } });
    const p = toolLoopSessionSpec(cfg);
    const r1 = runEvents('r1');
    const r2 = runEvents('r2', 1_700_000_000_500);
    const events: RawToolEvent[] = [];
    for (let i = 0; i < 20; i++) events.push(r1.call('read', { p: 1 }), r1.outcome('read', { p: 1 }, 'x'));
    const later = [
      r1.call('read', { p: 1 }),
      r1.call('read', { p: 9 }),
      r2.call('read', { p: 1 }),
      { ...r2.call('read', { p: 2 }), eventId: 'same-id' },
      { ...r1.call('read', { p: 3 }), eventId: 'same-id' },
    ];
    const before = fold(p, p.initialState, events).state;
    expect(fold(p, before, later).decisions.map(label)).toEqual([
      'r1 block generic_repeat 20',
      'r1 abort block_escalation',
      'r1 block block_escalation 1',
      'r2 allow',
      'r2 allow',
      // The same event id in another run is another event: answered, and blocked as r1 is.
      'r1 block block_escalation 1',
    ]);
  });

  it('keeps §2’s runs on histories of their own', () => {
    const cfg: ToolLoopConfig = { global: { enabled: true }, agents: {}, runTtlMs: 86_400_000, keyBy: 'session' };
    const p = toolLoopSessionSpec(cfg);
    const s = fold(p, p.initialState, interleaved(10)).state;
    expect(s.history).toEqual([]);
    expect(s.runs.map(([k, r]) => [k, r.history.length])).toEqual([
      ['r1', 5],
      ['r2', 5],
    ]);
  });

  it(`keeps the state of at most ${MAX_RUNS_PER_SESSION} runs, dropping the least recently active`, () => {
    const p = toolLoopSessionSpec({ ...profile(), global: { enabled: true } });
    let s = p.initialState;
    const drops: string[] = [];
    for (let i = 0; i <= MAX_RUNS_PER_SESSION; i++) {
      const e = runEvents(`r${i}`, 1_700_000_000_000 + i).call('read', {});
      const v = p.decide(s, e);
      drops.push(...p.drops(s, e, v));
      s = p.evolve(s, e, v);
    }
    expect(s.runs).toHaveLength(MAX_RUNS_PER_SESSION);
    expect(s.runs[0]![0]).toBe('r1');
    expect(drops).toEqual(['run']);
  });
});
