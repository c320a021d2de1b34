import { describe, expect, it } from 'vitest';
import { buildTopology } from '../../topology/build.js';
import { configFrom } from '../../topology/config.js';
import { InMemoryDriver } from '../../topology/testing/driver.js';
import { demoConfig, demoScenarios } from '../demo/traffic.js';
import { ConsoleView, DEFAULT_VIEW, verdictOf, type ConsoleDecision } from './view.js';

const source = { topic: 't', partition: 0, offset: 0 };
let n = 0;

function tool(key: string, ts: number, decision: 'allow' | 'warn' | 'block', extra: Partial<Record<string, unknown>> = {}): ConsoleDecision {
  const acting = decision !== 'allow';
  return {
    id: `d${++n}`,
    source,
    type: 'tool_decision',
    key,
    sessionKey: key,
    runId: key,
    ts,
    toolCallId: `c${n}`,
    toolName: 'read',
    decision,
    detector: acting ? 'generic_repeat' : null,
    level: acting ? 'warning' : null,
    count: acting ? 10 : null,
    message: acting ? `${decision} read` : null,
    pairedToolName: null,
    notify: acting ? true : null,
    ...extra,
  } as ConsoleDecision;
}

function abort(key: string, ts: number): ConsoleDecision {
  return {
    id: `d${++n}`,
    source,
    type: 'run_abort',
    key,
    sessionKey: key,
    runId: key,
    ts,
    detector: 'compaction_loop_persisted',
    count: 3,
    toolName: 'exec',
    message: 'run aborted',
  } as ConsoleDecision;
}

function bot(ts: number, decision: 'deliver' | 'suppress', cooldownUntil: number | null = null, extra: Partial<Record<string, unknown>> = {}): ConsoleDecision {
  return {
    id: `d${++n}`,
    source,
    type: 'bot_decision',
    key: 'pair',
    channel: 'slack',
    accountId: 'T1',
    conversationId: 'C1',
    senderId: n % 2 ? 'B' : 'A',
    receiverId: n % 2 ? 'A' : 'B',
    eventId: null,
    ts,
    decision,
    cooldownUntil: decision === 'suppress' ? cooldownUntil : null,
    reason: decision === 'suppress' ? 'pair_budget' : null,
    ...extra,
  } as ConsoleDecision;
}

const viewOf = (...ds: ConsoleDecision[]) => {
  const v = new ConsoleView();
  for (const d of ds) v.add(d);
  return v.snapshot();
};

describe('the console view of the demo traffic', () => {
  const driver = new InMemoryDriver(buildTopology(configFrom(demoConfig)), 3);
  const view = new ConsoleView();
  const fed: ConsoleDecision[] = [];
  for (const s of demoScenarios())
    for (const e of s.events) {
      const r = driver.pipe(e);
      if (r.ok) for (const d of r.decisions) fed.push(d as ConsoleDecision);
    }
  for (const d of fed) view.add(d);
  const snap = view.snapshot();

  it('lists the stuck reader as blocked with the message the model gets', () => {
    const stuck = snap.runs.find((r) => r.key === 'run-stuck-reader');
    expect(stuck).toMatchObject({ state: 'blocked', toolName: 'read' });
    expect(stuck!.message).toMatch(/read/);
    expect(stuck!.blocks).toBeGreaterThan(0);
  });
  it('lists the compaction loop as aborted and leaves the progressing poll out', () => {
    expect(snap.runs.find((r) => r.key === 'run-compaction')?.state).toBe('aborted');
    expect(snap.runs.some((r) => r.key === 'run-build-poll')).toBe(false);
  });
  it('shows the storm pair in cooldown and the legitimate exchange not at all', () => {
    expect(snap.cooldowns.map((c) => c.bots)).toEqual(['B0DEPLOY ↔ B0TRIAGE']);
    expect(snap.cooldowns[0]!.leftMs).toBe(snap.cooldowns[0]!.cooldownUntil - snap.now!);
    expect(snap.cooldowns[0]).toMatchObject({ channel: 'slack', conversation: 'T0ACME/C0ALERTS', reason: 'pair_budget' });
  });
  it('feeds only acting decisions, newest first, and counts every verdict', () => {
    expect(snap.feed.length).toBeGreaterThan(0);
    expect(snap.feed.every((f) => ['warn', 'block', 'abort', 'suppress'].includes(f.verdict))).toBe(true);
    for (let i = 1; i < snap.feed.length; i++) expect(snap.feed[i - 1]!.ts).toBeGreaterThanOrEqual(snap.feed[i]!.ts);
    // With a window that spans the whole demo, every decision fed is counted once under its verdict.
    const tally = { allow: 0, warn: 0, block: 0, abort: 0, deliver: 0, suppress: 0 };
    for (const d of fed) tally[verdictOf(d)]++;
    const ts = fed.map((d) => d.ts);
    const whole = new ConsoleView({ ...DEFAULT_VIEW, windowMinutes: Math.ceil((Math.max(...ts) - Math.min(...ts)) / 60_000) + 2 });
    for (const d of fed) whole.add(d);
    expect(whole.snapshot().totals).toEqual(tally);
    expect(snap.decisions).toBe(fed.length);
    expect(Math.min(tally.allow, tally.warn, tally.block, tally.abort, tally.deliver, tally.suppress)).toBeGreaterThan(0);
    expect(snap.counts.some((c) => c.verdict === 'suppress' && c.why === 'pair_budget')).toBe(true);
  });
});

describe('runs', () => {
  it('escalates warned to blocked and drops a run that is allowed again', () => {
    expect(viewOf(tool('r', 1, 'warn'), tool('r', 2, 'block')).runs).toMatchObject([{ key: 'r', state: 'blocked', warns: 1, blocks: 1, since: 1, lastTs: 2 }]);
    expect(viewOf(tool('r', 1, 'block'), tool('r', 2, 'allow')).runs).toEqual([]);
  });
  it('keeps an aborted run aborted whatever follows', () => {
    expect(viewOf(abort('r', 1), tool('r', 2, 'allow'), tool('r', 3, 'block')).runs[0]?.state).toBe('aborted');
  });
  it('lets a run go once it has been idle for the idle time of stream time', () => {
    const v = new ConsoleView({ feedSize: 10, windowMinutes: 15, runIdleMs: 1000, maxTracked: 10 });
    v.add(tool('old', 0, 'block'));
    v.add(tool('new', 1000, 'warn'));
    expect(v.snapshot().runs.map((r) => r.key)).toEqual(['new', 'old']);
    v.add(tool('new', 1001, 'warn'));
    expect(v.snapshot().runs.map((r) => r.key)).toEqual(['new']);
  });
  it('tracks at most maxTracked runs, dropping the least recently updated', () => {
    const v = new ConsoleView({ feedSize: 10, windowMinutes: 15, runIdleMs: 1e9, maxTracked: 2 });
    for (const [k, ts] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['a', 4],
    ] as const)
      v.add(tool(k, ts, 'warn'));
    expect(v.snapshot().runs.map((r) => r.key)).toEqual(['a', 'c']);
  });
});

describe('cooldowns', () => {
  it('shows the time left against the newest decision, not the wall clock', () => {
    const s = viewOf(bot(1000, 'suppress', 61_000), tool('r', 21_000, 'allow'));
    expect(s.now).toBe(21_000);
    expect(s.cooldowns).toMatchObject([{ bots: 'A ↔ B', since: 1000, cooldownUntil: 61_000, leftMs: 40_000, suppressed: 1 }]);
  });
  it('drops a pair once stream time reaches the end of its cooldown', () => {
    expect(viewOf(bot(1000, 'suppress', 61_000), tool('r', 61_000, 'allow')).cooldowns).toEqual([]);
  });
  it('drops a pair when a message of the pair is delivered after the cooldown began', () => {
    expect(viewOf(bot(1000, 'suppress', 61_000), bot(2000, 'deliver')).cooldowns).toEqual([]);
  });
  it('keeps the cooldown when an older message is delivered late', () => {
    expect(viewOf(bot(1000, 'suppress', 61_000), bot(500, 'deliver')).cooldowns).toHaveLength(1);
  });
  it('keeps the later end when an older trip reports an earlier one', () => {
    expect(viewOf(bot(5000, 'suppress', 65_000), bot(1000, 'suppress', 61_000)).cooldowns).toMatchObject([{ cooldownUntil: 65_000, suppressed: 2, since: 1000 }]);
  });
  it('shows no cooldown for a hop-limited message, whose cooldown ends where it starts', () => {
    expect(viewOf(bot(1000, 'suppress', 1000, { reason: 'hop_limit' })).cooldowns).toEqual([]);
  });
});

describe('shadow decisions and evidence', () => {
  it('marks shadow decisions in the feed, the runs and the counts', () => {
    const s = viewOf(tool('r', 1, 'block', { shadow: true }), tool('q', 2, 'block'));
    expect(s.feed.map((f) => [f.where, f.shadow])).toEqual([
      ['q', false],
      ['r', true],
    ]);
    expect(s.runs.find((r) => r.key === 'r')?.shadow).toBe(true);
    expect(s.counts.map((c) => [c.why, c.shadow, c.counts[2]])).toEqual(
      expect.arrayContaining([
        ['generic_repeat', true, 1],
        ['generic_repeat', false, 1],
      ]),
    );
  });
  it('passes evidence through when a decision carries it', () => {
    const evidence = { since: 1000, count: 21, senders: ['A', 'B'] };
    const s = viewOf(bot(1000, 'suppress', 61_000, { evidence }), tool('r', 2000, 'warn'));
    expect(s.feed.find((f) => f.verdict === 'suppress')?.evidence).toEqual(evidence);
    expect(s.cooldowns[0]?.evidence).toEqual(evidence);
    expect(s.feed.find((f) => f.verdict === 'warn')?.evidence).toBeNull();
  });
});

describe('counts over the last minutes', () => {
  it('counts per detector and reason over 1, 5 and 15 minutes of stream time', () => {
    const min = 60_000;
    const s = viewOf(tool('a', 0, 'warn'), tool('b', 10 * min, 'warn'), tool('c', 13 * min, 'block'), tool('d', 14 * min + 1, 'warn'), bot(14 * min, 'suppress', 15 * min));
    expect(s.counts).toEqual([
      { verdict: 'warn', why: 'generic_repeat', shadow: false, counts: [1, 2, 3] },
      { verdict: 'block', why: 'generic_repeat', shadow: false, counts: [0, 1, 1] },
      { verdict: 'suppress', why: 'pair_budget', shadow: false, counts: [1, 1, 1] },
    ]);
    expect(s.totals).toEqual({ allow: 0, warn: 3, block: 1, abort: 0, deliver: 0, suppress: 1 });
  });
  it('ages counts out as stream time moves past the window', () => {
    const s = viewOf(tool('a', 0, 'warn'), tool('b', 16 * 60_000, 'allow'));
    expect(s.counts).toEqual([]);
    expect(s.totals.warn).toBe(0);
    expect(s.totals.allow).toBe(1);
  });
  it('keeps the feed to its size, newest first even when decisions arrive out of ts order', () => {
    const v = new ConsoleView({ feedSize: 3, windowMinutes: 15, runIdleMs: 1e9, maxTracked: 10 });
    for (const ts of [5, 1, 9, 3, 7, 2, 8]) v.add(tool(`r${ts}`, ts, 'warn'));
    expect(v.snapshot().feed.map((f) => f.ts)).toEqual([9, 8, 7]);
  });
});
