// The wire and changelog fields of the tool policy (docs/behaviour.md §4.8): they survive the
// Avro round trip, and a changelog value written before them still restores.
import fc from 'fast-check';
import type avro from 'avsc';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fold } from '../processors/kernel/process.js';
import { argsKeyOf, type RunState } from '../processors/toolLoop/state.js';
import { buildTopology } from '../topology/build.js';
import { configFrom } from '../topology/config.js';
import { InMemoryDriver } from '../topology/testing/driver.js';
import { decisionCodec, toolEventCodec, toolLoopStateCodec, type ValueCodec } from './codecs.js';

const roundTrip = <T>(codec: ValueCodec<T>, value: T): T => codec.fromAvro(codec.type.fromBuffer(codec.type.toBuffer(codec.toAvro(value))));
const avsc = createRequire(import.meta.url)('avsc') as typeof avro;

const POLICY_CONFIG = configFrom({
  tools: { loopDetection: { enabled: true, warningThreshold: 2, criticalThreshold: 3, historySize: 8 } },
  loopguard: { toolPolicy: { mode: 'shadow', escalation: { abortAfterBlocks: 2 }, transientErrors: true, tools: { 'w*': { poll: true }, skip: { exempt: true } } } },
});

describe('tool policy on the wire', () => {
  it('carries error status, statusCode and code, and transient, from the JSON form to Avro and back', () => {
    const error = fc.record(
      { name: fc.string(), message: fc.string(), status: fc.integer({ min: 0, max: 999 }), statusCode: fc.double({ noNaN: true, noDefaultInfinity: true }), code: fc.string() },
      { requiredKeys: [] },
    );
    const event = fc.record(
      {
        type: fc.constant('tool_outcome'),
        ts: fc.nat(),
        runId: fc.string(),
        toolName: fc.string({ minLength: 1 }),
        args: fc.constant({}),
        error,
        transient: fc.option(fc.boolean(), { nil: undefined }),
      },
      { requiredKeys: ['type', 'ts', 'runId', 'toolName', 'args', 'error'] },
    );
    fc.assert(
      fc.property(event, (e) => {
        expect(roundTrip(toolEventCodec, e as Record<string, unknown>)).toEqual(e);
      }),
    );
  });
  it('carries shadow and evidence on tool decisions and run_abort unchanged', () => {
    const driver = new InMemoryDriver(buildTopology(POLICY_CONFIG), 2);
    const seen = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const r = driver.pipe({ type: 'tool_call', ts: 2 * i, runId: 'r', toolName: 'read', args: { p: 1 }, toolCallId: `c${i}` });
      driver.pipe({ type: 'tool_outcome', ts: 2 * i + 1, runId: 'r', toolName: 'read', args: { p: 1 }, result: 'same' });
      for (const d of r.ok ? r.decisions : []) {
        expect(roundTrip(decisionCodec, d)).toEqual(d);
        if (d.type === 'bot_decision') continue;
        seen.add(`${d.type}:${'decision' in d ? d.decision : ''}:${d.evidence === null ? 'none' : 'evidence'}:${String(d.shadow)}`);
      }
    }
    expect([...seen].sort()).toEqual(['run_abort::evidence:true', 'tool_decision:allow:none:true', 'tool_decision:block:evidence:true', 'tool_decision:warn:evidence:true']);
  });
});

describe('tool policy in the changelog', () => {
  const [tool] = buildTopology(POLICY_CONFIG).nodes;
  it('restores a run exactly, policy state included (split fold through Avro)', () => {
    const ev = fc.record({
      type: fc.constantFrom('tool_call', 'tool_outcome', 'compaction'),
      toolName: fc.constantFrom('read', 'wait', 'skip'),
      args: fc.constantFrom({ a: 1 }, { a: 2 }),
      result: fc.constantFrom('x', 'y', undefined),
      error: fc.constantFrom(undefined, 'timeout', 'boom'),
      eventId: fc.option(fc.constantFrom('e1', 'e2', 'e3'), { nil: undefined }),
      toolCallId: fc.option(fc.constantFrom('c1', 'c2', 'c3'), { nil: undefined }),
      agentId: fc.option(fc.constant('a'), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(ev, { maxLength: 60 }), fc.nat(), (raw, at) => {
        const events = raw
          .map((e, i) => tool!.parse({ ...e, ts: i * 1000, runId: 'r' }))
          .map((p) => (p.ok ? p.value : null))
          .filter((e) => e !== null);
        const cut = at % (events.length + 1);
        const whole = fold(tool!.process, tool!.process.initialState, events);
        const head = fold(tool!.process, tool!.process.initialState, events.slice(0, cut));
        const restored = roundTrip(toolLoopStateCodec, { offset: cut, state: head.state }).state;
        expect([...head.decisions, ...fold(tool!.process, restored, events.slice(cut)).decisions]).toEqual(whole.decisions);
      }),
    );
  });
  it('still reads a value written with the previous tool-loop-state schema', () => {
    const v1 = avsc.Type.forSchema(JSON.parse(readFileSync('schemas/history/tool-loop-state.v1.avsc', 'utf8')) as avro.Schema);
    const old = {
      offset: 41,
      state: {
        lastTs: 9000,
        agentId: 'a',
        history: [{ toolName: 'read', argsHash: 'read:h', toolCallId: 'c1', resultHash: 'r1', unknownToolName: null }],
        guard: { remaining: 2, window: ['read\u0000read:h\u0000r1'] },
        aborted: { count: 3, toolName: 'read' },
        warnings: [{ key: 'generic|read|read:h', count: 10 }],
        eventIds: [
          { eventType: 'tool_call', eventId: 'e1', verdict: { decision: 'warn', detector: 'generic_repeat', level: 'warning', count: 10, notify: true, pairedToolName: null } },
        ],
      },
    };
    const codec = toolLoopStateCodec;
    const entry = codec.fromAvro(codec.type.fromBuffer(v1.toBuffer(old), codec.type.createResolver(v1)));
    const s: RunState = entry.state as RunState;
    expect(entry.offset).toBe(41);
    expect(s.history).toEqual([{ toolName: 'read', argsHash: 'read:h', argsKey: argsKeyOf('read:h'), toolCallId: 'c1', resultHash: 'r1', unknownToolName: undefined, ts: 0 }]);
    expect(s.guard).toEqual({ remaining: 2, window: [{ triple: 'read\u0000read:h\u0000r1', toolCallId: undefined, ts: 0 }] });
    expect(s.aborted).toEqual({ count: 3, toolName: 'read', detector: 'compaction_loop_persisted', evidence: undefined });
    expect(s.blocked).toBeNull();
    // The restored run goes on: its calls are blocked by the old abort, a redelivered call gets its old answer.
    const next = fold(
      tool!.process,
      s,
      [
        tool!.parse({ type: 'tool_call', ts: 9001, runId: 'r', toolName: 'x', args: {} }),
        tool!.parse({ type: 'tool_call', ts: 9002, runId: 'r', toolName: 'read', argsHash: 'read:h', eventId: 'e1' }),
      ].map((p) => (p.ok ? p.value : null)),
    );
    expect(next.decisions).toMatchObject([
      { decision: 'block', detector: 'compaction_loop_persisted', count: 3, evidence: null },
      { decision: 'warn', detector: 'generic_repeat', count: 10, evidence: null, shadow: null },
    ]);
  });
});
