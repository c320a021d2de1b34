import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTopology } from '../../topology/build.js';
import { configFrom } from '../../topology/config.js';
import { createLogger } from '../../topology/logger.js';
import { reportFolded, type FoldedRecords } from '../../topology/runtime/report.js';
import { NO_TELEMETRY, PrometheusTelemetry } from '../../topology/runtime/telemetry.js';
import { InMemoryDriver } from '../../topology/testing/driver.js';
import type { Decision } from '../../topology/topology.js';
import { demoConfig } from '../demo/traffic.js';
import { DemoProgress, demoFeed } from './demoFeed.js';
import { javaMajor, leftBehind } from './embeddedStack.js';
import { formatStatus, LiveStats } from './liveStats.js';

describe('javaMajor', () => {
  it.each([
    ['openjdk version "17.0.15" 2025-04-15', 17],
    ['openjdk version "21" 2023-09-19', 21],
    ['java version "1.8.0_392"', 8],
    ['something else', null],
  ])('reads %j as %j', (banner, major) => expect(javaMajor(banner)).toBe(major));
});

describe('a running embedded stack', () => {
  it('is owned while its supervisor lives, and left behind once it is gone or was never recorded', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-owner-'));
    try {
      expect(leftBehind(dir)).toMatch(/^no loopguard start owns it/);
      writeFileSync(join(dir, 'owner'), JSON.stringify({ supervisor: 4242, start: 4241 }));
      expect(leftBehind(dir, (pid) => pid === 4242)).toBeNull();
      expect(leftBehind(dir, () => false)).toBe('left behind: the loopguard start that started it (its supervisor, pid 4242) is gone');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('LiveStats', () => {
  it('counts events and decisions by verdict, sums lag, and rates events per second', () => {
    const s = new LiveStats(NO_TELEMETRY);
    s.sample(1000);
    s.event('tool_call', 30);
    s.decision({ type: 'tool_decision', decision: 'block', why: 'generic_repeat', shadow: false }, 1);
    s.decision({ type: 'run_abort', decision: 'run_abort', why: 'compaction_loop_persisted', shadow: false }, 1);
    s.decision({ type: 'tool_decision', decision: 'block', why: 'generic_repeat', shadow: true }, 1);
    s.lag('in', 0, 3);
    s.lag('in', 1, 4);
    s.lag('in', 0, 1);
    s.setReady(true);
    expect(s.sample(3000)).toEqual({ ready: true, events: 30, eventsPerSecond: 15, decisions: { block: 1, abort: 1, 'would block': 1 }, lag: 5 });
    expect(formatStatus(s.status())).toBe('● ready  15.0 events/s  1 block · 1 abort · 1 would block  lag 5');
  });
});

describe('LiveStats in front of the Prometheus metrics', () => {
  // The processor reports a batch once per event type and label set (reportFolded); start's
  // status and its /metrics counted one per report, not per event (issue 30: 13 of 349).
  it('counts every event and decision of a batch, in its status and in /metrics', async () => {
    const prometheus = new PrometheusTelemetry();
    const s = new LiveStats(prometheus);
    const record = (offset: number) => ({ topic: 'in', partition: 0, offset, key: null, value: null, timestamp: 0, headers: {} });
    const decision = { type: 'tool_decision', decision: 'allow', detector: null, shadow: null } as unknown as Decision;
    const folded = Array.from({ length: 40 }, (_, i) => [record(i), { kind: 'decided', eventType: 'tool_call', drops: [], trips: [], decisions: [decision] }] as const);
    reportFolded(folded as unknown as FoldedRecords, s, createLogger({ log: { level: 'silent', redact: true } }));
    expect(s.sample(1000)).toMatchObject({ events: 40, decisions: { allow: 40 } });
    const text = await prometheus.registry.metrics();
    expect(text).toContain('loopguard_events_total{type="tool_call"} 40');
    expect(text).toContain('loopguard_decisions_total{type="tool_decision",decision="allow",detector="none",reason="none",shadow="false"} 40');
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
