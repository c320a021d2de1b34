import { describe, expect, it } from 'vitest';
import { buildTopology } from '../build.js';
import { configFrom } from '../config.js';
import { createLogger } from '../logger.js';
import { PartitionTask } from '../task.js';
import type { Decision } from '../topology.js';
import type { Folded } from './foldRecord.js';
import type { InRecord } from './port.js';
import { reportFolded } from './report.js';
import { PrometheusTelemetry } from './telemetry.js';

/** `d` under other labels for some records, so that a batch holds several label sets. */
const varied = (d: Decision, i: number): Decision =>
  d.type !== 'tool_decision' ? d : ({ ...d, ...(i % 3 === 0 ? { decision: 'warn', detector: 'genericRepeat' } : {}), ...(i % 5 === 0 ? { shadow: true } : {}) } as Decision);

describe('what a batch reports', () => {
  it('counts every entry bounded state had to drop, by input topic and kind', async () => {
    const [toolNode] = buildTopology(configFrom({})).nodes;
    const task = new PartitionTask(toolNode!, 0, { maxFutureSkewMs: 1e15, now: () => 0 });
    const telemetry = new PrometheusTelemetry();
    const log = createLogger({ log: { level: 'silent', redact: true } });
    for (let i = 0; i < 4097; i++) {
      const r = task.process({ topic: 'tools', partition: 0, offset: i, value: { type: 'compaction', ts: i, runId: 'r', eventId: `e${i}` } });
      if (r.kind !== 'decided') throw new Error(r.kind);
      const record = { topic: 'tools', partition: 0, offset: i, key: null, value: null, timestamp: 0, headers: {} };
      reportFolded(
        [[record, { kind: 'decided', eventType: 'compaction', drops: r.drops, trips: r.trips, key: r.key, decisions: r.decisions, outputs: [], state: undefined }]],
        telemetry,
        log,
      );
    }
    expect(await telemetry.registry.getSingleMetricAsString('loopguard_state_drops_total')).toContain('loopguard_state_drops_total{topic="tools",what="event_id"} 1');
  });

  it('counts the events and decisions of a batch as one call per record would', async () => {
    const [toolNode] = buildTopology(configFrom({})).nodes;
    const task = new PartitionTask(toolNode!, 0, { maxFutureSkewMs: 1e15, now: () => 0 });
    const batched = new PrometheusTelemetry();
    const single = new PrometheusTelemetry();
    const log = createLogger({ log: { level: 'silent', redact: true } });
    const folded: Array<readonly [InRecord, Folded]> = [];
    for (let i = 0; i < 40; i++) {
      const value = { type: 'tool_call', ts: i, runId: `r${i % 2}`, toolCallId: `c${i}`, toolName: 'read', argsHash: `read:${'0'.repeat(64)}` };
      const r = task.process({ topic: 'tools', partition: 0, offset: i, value });
      if (r.kind !== 'decided') throw new Error(r.kind);
      const record = { topic: 'tools', partition: 0, offset: i, key: null, value: null, timestamp: 0, headers: {} };
      const f: Folded = {
        kind: 'decided',
        eventType: 'tool_call',
        drops: r.drops,
        trips: r.trips,
        key: r.key,
        decisions: r.decisions.map((d) => varied(d, i)),
        outputs: [],
        state: undefined,
      };
      folded.push([record, f]);
      reportFolded([[record, f]], single, log);
    }
    reportFolded(folded, batched, log);
    for (const metric of ['loopguard_events_total', 'loopguard_decisions_total']) {
      const text = await batched.registry.getSingleMetricAsString(metric);
      expect(text).toBe(await single.registry.getSingleMetricAsString(metric));
      expect(text).toMatch(metric === 'loopguard_events_total' ? /type="tool_call"} 40/ : /decision="warn",detector="genericRepeat",reason="none",shadow="true"} 3\b/);
    }
  });
});
