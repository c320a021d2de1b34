// The decision counters: by detector or reason, with shadow decisions under their own label,
// and escalations counted on their own.
import { describe, expect, it } from 'vitest';
import { decisionLabels, PrometheusTelemetry } from './telemetry.js';
import type { Decision } from '../topology.js';

const source = { topic: 't', partition: 0, offset: 0 };
const block = {
  type: 'tool_decision',
  id: 'd1',
  source,
  key: 'r',
  ts: 1,
  toolName: 'read',
  decision: 'block',
  detector: 'generic_repeat',
  count: 20,
  shadow: true,
} as unknown as Decision;
const escalation = { type: 'run_abort', id: 'd2', source, key: 'r', ts: 1, toolName: 'read', detector: 'block_escalation', count: 5, shadow: null } as unknown as Decision;
const suppress = { type: 'bot_decision', id: 'd3', source, key: 'k', ts: 1, decision: 'suppress', reason: 'slow_loop', cooldownUntil: 9, shadow: null } as unknown as Decision;

describe('decision metrics', () => {
  it('label a decision by its kind, verdict, detector or reason, and shadow mode', () => {
    expect(decisionLabels(block)).toEqual({ type: 'tool_decision', decision: 'block', why: 'generic_repeat', shadow: true });
    expect(decisionLabels(escalation)).toEqual({ type: 'run_abort', decision: 'run_abort', why: 'block_escalation', shadow: false });
    expect(decisionLabels(suppress)).toEqual({ type: 'bot_decision', decision: 'suppress', why: 'slow_loop', shadow: false });
  });
  it('count shadow decisions apart from enforced ones, and escalations', async () => {
    const t = new PrometheusTelemetry();
    for (const d of [block, block, escalation, suppress]) t.decision(decisionLabels(d), 1);
    t.trip('slow_loop', false);
    const text = await t.registry.metrics();
    expect(text).toContain('loopguard_decisions_total{type="tool_decision",decision="block",detector="generic_repeat",reason="none",shadow="true"} 2');
    expect(text).toContain('loopguard_decisions_total{type="bot_decision",decision="suppress",detector="none",reason="slow_loop",shadow="false"} 1');
    expect(text).toContain('loopguard_escalations_total{shadow="false"} 1');
    expect(text).toContain('loopguard_trips_total{what="slow_loop",shadow="false"} 1');
  });
});
