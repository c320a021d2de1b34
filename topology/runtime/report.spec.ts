import { describe, expect, it } from 'vitest';
import { buildTopology } from '../build.js';
import { configFrom } from '../config.js';
import { createLogger } from '../logger.js';
import { PartitionTask } from '../task.js';
import { reportFolded } from './report.js';
import { PrometheusTelemetry } from './telemetry.js';

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
        [
          [
            record,
            { kind: 'decided', eventType: 'compaction', drops: r.drops, trips: r.trips, key: r.key, before: r.previous, decisions: r.decisions, outputs: [], state: undefined },
          ],
        ],
        telemetry,
        log,
      );
    }
    expect(await telemetry.registry.getSingleMetricAsString('loopguard_state_drops_total')).toContain('loopguard_state_drops_total{topic="tools",what="event_id"} 1');
  });
});
