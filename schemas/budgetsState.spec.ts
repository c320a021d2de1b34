// The changelog of budgets (docs/behaviour.md §5): spent calls survive a restore, and a value
// written by the build before budgets (committed as a fixture, with the schema it was written
// with) restores under the new schema and goes on being decided.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type avro from 'avsc';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold } from '../processors/kernel/process.js';
import type { ToolLoopConfig } from '../processors/toolLoop/config.js';
import type { RunState } from '../processors/toolLoop/state.js';
import { runEvents, toolLoopSpec, type RawToolEvent } from '../processors/toolLoop/testing/events.js';
import { toolLoopStateCodec, type StoreEntry } from './codecs.js';

const avsc = createRequire(import.meta.url)('avsc') as typeof avro;
const roundTrip = (e: StoreEntry<RunState>): StoreEntry<RunState> =>
  toolLoopStateCodec.fromAvro(toolLoopStateCodec.type.fromBuffer(toolLoopStateCodec.type.toBuffer(toolLoopStateCodec.toAvro(e)))) as StoreEntry<RunState>;

interface Fixture {
  readonly schema: string;
  readonly commit: string;
  readonly base64: string;
  readonly events: RawToolEvent[];
  readonly decisions: unknown[];
}
const fixture = JSON.parse(readFileSync('schemas/fixtures/tool-loop-state.v2.json', 'utf8')) as Fixture;

const config = (policy: ToolLoopConfig['policy']): ToolLoopConfig => ({
  global: { enabled: true, warningThreshold: 2, criticalThreshold: 3 },
  agents: {},
  runTtlMs: 86_400_000,
  policy,
});

describe('budgets in the changelog', () => {
  it('restores a value the build before budgets wrote, and the run goes on being decided and spending from then', () => {
    const writer = avsc.Type.forSchema(JSON.parse(readFileSync(fixture.schema, 'utf8')) as avro.Schema);
    const bytes = Buffer.from(fixture.base64, 'base64');
    const codec = toolLoopStateCodec;
    const entry = codec.fromAvro(codec.type.fromBuffer(bytes, codec.type.createResolver(writer))) as StoreEntry<RunState>;
    expect(entry.offset).toBe(8);
    const s = entry.state;
    expect(s.spent).toBeNull();
    expect(s.agentId).toBe('researcher');
    expect(s.blocked).toMatchObject({ count: 2 });
    // Folding the same events with the same config from scratch gives this very state.
    const p = toolLoopSpec(config({ escalation: { abortAfterBlocks: 5 } }));
    expect(s).toEqual(fold(p, p.initialState, fixture.events).state);

    // Under a config with budgets, the restored run spends from its restore on.
    const q = toolLoopSpec(config({ escalation: { abortAfterBlocks: 5 }, agents: { researcher: { budgets: { maxCalls: 2 } } } }));
    const r = runEvents('run-fixture', 1_700_000_100_000);
    const redelivered = fixture.events.find((e) => e.eventId === 'e3')!;
    const next = fold(q, s, [redelivered, r.call('read', { i: 1 }), r.call('read', { i: 2 }), r.call('read', { i: 3 })]);
    expect(next.decisions.map((d) => [d.type, 'decision' in d ? d.decision : null, d.detector])).toEqual([
      ['tool_decision', 'warn', 'generic_repeat'],
      ['tool_decision', 'allow', null],
      ['tool_decision', 'allow', null],
      ['tool_decision', 'block', 'run_call_budget'],
    ]);
    expect(next.decisions[0]).toMatchObject(fixture.decisions[2] as object);
  });

  it('gives the same decisions when a run with budgets is restored from its changelog value anywhere', () => {
    const p = toolLoopSpec(config({ budgets: { maxCalls: 6, maxSeconds: 40 }, tools: { 'w*': { maxCalls: 3 }, skip: { exempt: true } }, escalation: { abortAfterBlocks: 4 } }));
    const ev = fc.record({
      kind: fc.constantFrom('call', 'call', 'call', 'outcome', 'run_end'),
      tool: fc.constantFrom('web', 'wiki', 'read', 'skip'),
      arg: fc.integer({ min: 0, max: 2 }),
      gap: fc.constantFrom(0, 1000, 9_999, 10_000, 20_000),
      eventId: fc.option(fc.constantFrom('e1', 'e2', 'e3'), { nil: undefined }),
      id: fc.option(fc.constantFrom('c1', 'c2'), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(ev, { maxLength: 40 }), fc.nat(), (raw, at) => {
        let ts = 1_000_000;
        const events: RawToolEvent[] = raw.map((e) => {
          ts += e.gap;
          const base = { ts, runId: 'r', eventId: e.eventId, toolCallId: e.id };
          if (e.kind === 'run_end') return { type: 'run_end', ts, runId: 'r', eventId: e.eventId };
          return e.kind === 'call'
            ? { type: 'tool_call', ...base, toolName: e.tool, args: { a: e.arg } }
            : { type: 'tool_outcome', ...base, toolName: e.tool, args: { a: e.arg }, result: 'x' };
        });
        const cut = at % (events.length + 1);
        const whole = fold(p, p.initialState, events);
        const head = fold(p, p.initialState, events.slice(0, cut));
        const restored = roundTrip({ offset: cut, state: head.state }).state;
        expect(restored).toEqual(head.state);
        expect([...head.decisions, ...fold(p, restored, events.slice(cut)).decisions]).toEqual(whole.decisions);
      }),
    );
  });
});
