import { describe, expect, it } from 'vitest';
import { buildTopology } from '../../topology/build.js';
import { configFrom } from '../../topology/config.js';
import { NO_TELEMETRY } from '../../topology/runtime/telemetry.js';
import { InMemoryDriver } from '../../topology/testing/driver.js';
import type { Decision } from '../../topology/topology.js';
import { demoConfig } from '../demo/traffic.js';
import { DemoProgress, demoFeed } from './demoFeed.js';
import { javaMajor } from './embeddedStack.js';
import { formatStatus, LiveStats } from './liveStats.js';

describe('javaMajor', () => {
  it.each([
    ['openjdk version "17.0.15" 2025-04-15', 17],
    ['openjdk version "21" 2023-09-19', 21],
    ['java version "1.8.0_392"', 8],
    ['something else', null],
  ])('reads %j as %j', (banner, major) => expect(javaMajor(banner)).toBe(major));
});

describe('LiveStats', () => {
  it('counts events and decisions by verdict, sums lag, and rates events per second', () => {
    const s = new LiveStats(NO_TELEMETRY);
    s.sample(1000);
    for (let i = 0; i < 30; i++) s.event('tool_call');
    s.decision({ type: 'tool_decision', decision: 'block', why: 'generic_repeat', shadow: false });
    s.decision({ type: 'run_abort', decision: 'run_abort', why: 'compaction_loop_persisted', shadow: false });
    s.decision({ type: 'tool_decision', decision: 'block', why: 'generic_repeat', shadow: true });
    s.lag('in', 0, 3);
    s.lag('in', 1, 4);
    s.lag('in', 0, 1);
    s.setReady(true);
    expect(s.sample(3000)).toEqual({ ready: true, events: 30, eventsPerSecond: 15, decisions: { block: 1, abort: 1, 'would block': 1 }, lag: 5 });
    expect(formatStatus(s.status())).toBe('● ready  15.0 events/s  1 block · 1 abort · 1 would block  lag 5');
  });
});

describe('start --demo traffic', () => {
  const topology = buildTopology(configFrom(demoConfig));
  const feed = demoFeed(topology, 3, 'abc', 10_000_000);

  it('is tagged as its own runs and conversations and ends now', () => {
    expect(Math.max(...feed.events.map((e) => e.ts as number))).toBe(10_000_000);
    expect(new Set(feed.events.filter((e) => e.runId).map((e) => e.runId))).toEqual(
      new Set(['run-stuck-reader-abc', 'run-build-poll-abc', 'run-ping-pong-abc', 'run-compaction-abc', 'run-stubborn-abc', 'run-canary-reader-abc', 'run-researcher-abc']),
    );
    expect(feed.events.filter((e) => e.type === 'bot_message').every((e) => String(e.conversationId).endsWith('-abc') && String(e.eventId).endsWith('-abc'))).toBe(true);
  });
  it('expects what the in-memory run decides, and reports when all of it came back', () => {
    const driver = new InMemoryDriver(topology, 3);
    const decisions = feed.events.flatMap((e) => {
      const r = driver.pipe(e);
      return r.ok ? [...r.decisions] : [];
    });
    expect(decisions).toHaveLength(feed.total);
    const progress = new DemoProgress(feed);
    const printed = [...decisions, decisions[0]!].flatMap((d) => progress.onDecision(d));
    expect(printed.at(-1)).toMatch(new RegExp(`^demo: all ${feed.total} decisions came back through Kafka \\(2 abort, \\d+ allow, .*\\), as the in-memory run`));
    expect(printed.filter((l) => l.includes('BLOCK')).length).toBe(decisions.filter((d) => d.type === 'tool_decision' && d.decision === 'block').length);
    expect(printed.some((l) => l.includes('(quiet)'))).toBe(false);
    expect(progress.done).toBe(true);
  });
  it("ignores decisions that are not the demo's, and says so when what came back differs", () => {
    const progress = new DemoProgress({ ...feed, total: 1, expected: { block: 1 } });
    const other = { id: 'x', type: 'tool_decision', key: 'someone-else', decision: 'block' } as unknown as Decision;
    expect(progress.onDecision(other)).toEqual([]);
    const mine = { id: 'y', type: 'tool_decision', key: 'run-stuck-reader-abc', decision: 'allow' } as unknown as Decision;
    expect(progress.onDecision(mine)).toEqual(['demo: 1 decisions came back through Kafka (1 allow), but the in-memory run of the same events gives 1 block']);
  });
});
