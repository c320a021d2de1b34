// A reference model of budgets written from the contract's text (docs/behaviour.md §5, with
// §4.1 shadow, §4.2 escalation, §4.3 entry selection, §1 redelivery and §2.7 run end / idle
// TTL), small and naive on purpose: it keeps every spent call in a list and counts by filtering.
// Generated streams are checked against the processor; they aim at the boundaries (counts around
// maxCalls, gaps around maxSeconds and the TTL). Loop detection is off (`enabled: false`), so
// §2.5 never decides and only budgets block; the order against §2.5 is in budgets.spec.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold } from '../kernel/process.js';
import type { RunAbort, ToolDecision, ToolLoopConfig } from './index.js';
import type { Budgets, ToolEntry, ToolPolicyAgentBlock, ToolPolicyBlock } from './policy.js';
import { toolLoopSpec, type RawToolEvent } from './testing/events.js';

interface Seen {
  readonly id: string | undefined;
  readonly ts: number;
}
interface ModelDecision {
  readonly type: 'tool_decision' | 'run_abort';
  readonly decision?: string;
  readonly detector: string | null;
  readonly count: number | null;
  readonly shadow: boolean | null;
  readonly evidence: { readonly toolCallIds?: readonly string[]; readonly since: number } | null;
}

/** §4.3: the exact key, else the matching pattern with the most non-`*` characters, ties to the first. */
function select(entries: ReadonlyArray<readonly [string, ToolEntry]>, name: string): readonly [string, ToolEntry] | undefined {
  const exact = entries.find(([k]) => k === name);
  if (exact) return exact;
  let best: readonly [string, ToolEntry] | undefined;
  for (const e of entries) {
    const re = new RegExp(
      `^${e[0]
        .split('*')
        .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
      's',
    );
    if (e[0].includes('*') && re.test(name) && (best === undefined || e[0].replaceAll('*', '').length > best[0].replaceAll('*', '').length)) best = e;
  }
  return best;
}

interface Resolved {
  readonly shadow: boolean;
  readonly budgets: Budgets | undefined;
  readonly abortAfter: number | undefined;
  readonly entries: ReadonlyArray<readonly [string, ToolEntry]>;
}

function resolve(p: ToolPolicyBlock, agentId: string | undefined): Resolved {
  const a: ToolPolicyAgentBlock = (agentId !== undefined && p.agents?.[agentId]) || {};
  const entries: Array<[string, ToolEntry]> = Object.entries(p.tools ?? {});
  for (const [k, e] of Object.entries(a.tools ?? {})) {
    const i = entries.findIndex(([x]) => x === k);
    if (i >= 0) entries[i] = [k, { ...entries[i]![1], ...e }];
    else entries.push([k, e]);
  }
  const budgets = p.budgets || a.budgets ? { ...p.budgets, ...a.budgets } : undefined;
  const esc = p.escalation || a.escalation ? { ...p.escalation, ...a.escalation } : undefined;
  return { shadow: (a.mode ?? p.mode) === 'shadow', budgets, abortAfter: esc?.abortAfterBlocks, entries };
}

const evidenceOf = (calls: readonly Seen[]) => ({ toolCallIds: calls.flatMap((c) => (c.id === undefined ? [] : [c.id])).slice(-20), since: calls[0]!.ts });

/** The decisions the contract gives for one run's events. */
function model(policy: ToolPolicyBlock, ttlMs: number, events: readonly RawToolEvent[]): ModelDecision[] {
  const out: ModelDecision[] = [];
  let lastTs: number | null = null;
  let agent: string | undefined;
  let spent: Array<Seen & { readonly key: string | undefined }> = [];
  let blocks: Seen[] = [];
  let aborted: ModelDecision | null = null;
  let seen = new Map<string, ModelDecision | null>();
  const fresh = () => {
    agent = undefined;
    spent = [];
    blocks = [];
    aborted = null;
  };
  for (const e of events) {
    const ts = e.ts;
    if (lastTs !== null && ts - lastTs > ttlMs) {
      fresh();
      seen = new Map();
    }
    const eventId = e.eventId as string | undefined;
    const idKey = `${e.type}/${eventId}`;
    if (eventId !== undefined && seen.has(idKey)) {
      const again = seen.get(idKey);
      if (again) out.push(again);
      continue;
    }
    lastTs = ts;
    agent ??= e.agentId as string | undefined;
    const cfg = resolve(policy, agent);
    let answer: ModelDecision | null = null;
    if (e.type === 'run_end') fresh();
    if (e.type === 'tool_call') {
      const id = e.toolCallId as string | undefined;
      const shadow = cfg.shadow ? true : null;
      const block = (detector: string, count: number, evidence: ModelDecision['evidence']): ModelDecision => ({
        type: 'tool_decision',
        decision: 'block',
        detector,
        count,
        shadow,
        evidence,
      });
      const sel = select(cfg.entries, e.toolName as string);
      const onKey = spent.filter((s) => sel !== undefined && s.key === sel[0]);
      const b = cfg.budgets;
      const elapsed = spent.length > 0 ? ts - spent[0]!.ts : 0;
      if (aborted !== null) answer = block((aborted as ModelDecision).detector!, (aborted as ModelDecision).count!, (aborted as ModelDecision).evidence);
      else if (sel?.[1].exempt === true) answer = { type: 'tool_decision', decision: 'allow', detector: null, count: null, shadow, evidence: null };
      else if (sel?.[1].maxCalls !== undefined && onKey.length >= sel[1].maxCalls) answer = block('tool_call_budget', onKey.length, evidenceOf(onKey));
      else if (b?.maxCalls !== undefined && spent.length >= b.maxCalls) answer = block('run_call_budget', spent.length, evidenceOf(spent));
      else if (b?.maxSeconds !== undefined && spent.length > 0 && elapsed >= b.maxSeconds * 1000)
        answer = block('run_time_budget', Math.floor(elapsed / 1000), { toolCallIds: [], since: spent[0]!.ts });
      else {
        answer = { type: 'tool_decision', decision: 'allow', detector: null, count: null, shadow, evidence: null };
        spent.push({ id, ts, key: sel?.[0] });
      }
      out.push(answer);
      if (aborted === null && answer.decision === 'block') {
        blocks.push({ id, ts });
        if (cfg.abortAfter !== undefined && blocks.length >= cfg.abortAfter) {
          aborted = { type: 'run_abort', detector: 'block_escalation', count: blocks.length, shadow, evidence: evidenceOf(blocks) };
          out.push(aborted);
        }
      }
    }
    if (eventId !== undefined) seen.set(idKey, answer);
  }
  return out;
}

const view = (d: ToolDecision | RunAbort): ModelDecision =>
  d.type === 'tool_decision'
    ? { type: d.type, decision: d.decision, detector: d.detector, count: d.count, shadow: d.shadow, evidence: d.evidence }
    : { type: d.type, detector: d.detector, count: d.count, shadow: d.shadow, evidence: d.evidence };

const TTL = 30_000;
const SECONDS = 5;
const maxCalls = fc.integer({ min: 1, max: 4 });
const entry: fc.Arbitrary<ToolEntry> = fc.record({ maxCalls, exempt: fc.constantFrom(true, false) }, { requiredKeys: [] });
const budgets: fc.Arbitrary<Budgets> = fc.oneof(
  fc.record({ maxCalls }),
  fc.record({ maxSeconds: fc.constantFrom(SECONDS) }),
  fc.record({ maxCalls, maxSeconds: fc.constantFrom(1, SECONDS) }),
);
const tools = fc.dictionary(fc.constantFrom('web_*', 'web_fetch', '*', 'read', 'ping'), entry, { maxKeys: 3 });
const agentBlock: fc.Arbitrary<ToolPolicyAgentBlock> = fc.record(
  { mode: fc.constantFrom('enforce' as const, 'shadow' as const), budgets, tools, escalation: fc.record({ abortAfterBlocks: fc.integer({ min: 1, max: 4 }) }) },
  { requiredKeys: [] },
);
const policy: fc.Arbitrary<ToolPolicyBlock> = fc.record(
  {
    mode: fc.constantFrom('enforce' as const, 'shadow' as const),
    budgets,
    tools,
    escalation: fc.record({ abortAfterBlocks: fc.integer({ min: 1, max: 4 }) }),
    agents: fc.record({ a: agentBlock, b: agentBlock }, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
);
// Gaps around the time budget (1 s and 5 s), the TTL, and back in time.
const gap = fc.constantFrom(0, 1, 500, 999, 1000, 1001, 4_999, 5_000, 5_001, TTL - 1, TTL, TTL + 1, -1000);
const event = fc.record({
  type: fc.constantFrom('tool_call', 'tool_call', 'tool_call', 'tool_call', 'tool_outcome', 'run_end', 'compaction'),
  gap,
  toolName: fc.constantFrom('web_search', 'web_fetch', 'read', 'ping'),
  agentId: fc.option(fc.constantFrom('a', 'b'), { nil: undefined, freq: 4 }),
  eventId: fc.option(fc.constantFrom('e1', 'e2', 'e3', 'e4'), { nil: undefined, freq: 2 }),
  toolCallId: fc.option(fc.constantFrom('c1', 'c2', 'c3'), { nil: undefined, freq: 4 }),
});

function stream(
  raw: ReadonlyArray<{ type: string; gap: number; toolName: string; agentId?: string | undefined; eventId?: string | undefined; toolCallId?: string | undefined }>,
): RawToolEvent[] {
  let ts = 1_000_000;
  return raw.map((e, i) => {
    ts = Math.max(0, ts + e.gap);
    const id = { ts, runId: 'r', agentId: e.agentId, eventId: e.eventId };
    if (e.type === 'run_end' || e.type === 'compaction') return { type: e.type, ...id };
    const call = { ...id, toolName: e.toolName, args: { i }, toolCallId: e.toolCallId };
    return e.type === 'tool_call' ? { type: e.type, ...call } : { type: e.type, ...call, result: 'same' };
  });
}

describe('budgets against a model written from the contract', () => {
  it('decides every generated stream as the model does', () => {
    fc.assert(
      fc.property(policy, fc.array(event, { maxLength: 60 }), (p, raw) => {
        const config: ToolLoopConfig = { global: { enabled: false }, agents: {}, runTtlMs: TTL, policy: p };
        const events = stream(raw);
        const spec = toolLoopSpec(config);
        const got = fold(spec, spec.initialState, events).decisions.map(view);
        expect(got).toEqual(model(p, TTL, events));
      }),
      { numRuns: 400 },
    );
  });
});
