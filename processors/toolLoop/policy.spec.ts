// loopguard's own tool policy (docs/behaviour.md §4.1–§4.3): shadow mode, escalation and
// per-tool entries, in given / when / then form over raw events.
import { describe, expect, it } from 'vitest';
import { fold } from '../kernel/process.js';
import { given } from '../kernel/spec.js';
import type { LoopDetectionBlock, RunAbort, ToolDecision, ToolLoopConfig } from './index.js';
import type { ToolPolicyBlock } from './policy.js';
import { runEvents, toolLoopSpec, type RawToolEvent } from './testing/events.js';

type Decision = ToolDecision | RunAbort;
const cfg = (policy: ToolPolicyBlock, global: LoopDetectionBlock = { enabled: true }, agents: Record<string, LoopDetectionBlock> = {}): ToolLoopConfig => ({
  global,
  agents,
  runTtlMs: 86_400_000,
  policy,
});
const spec = (policy: ToolPolicyBlock, global?: LoopDetectionBlock) => toolLoopSpec(cfg(policy, global));
const calls = (ds: readonly unknown[]) => ds.filter((d): d is ToolDecision => (d as Decision).type === 'tool_decision');
const aborts = (ds: readonly unknown[]) => ds.filter((d): d is RunAbort => (d as Decision).type === 'run_abort');
const same = () => 'same';
const withoutShadow = (ds: readonly unknown[]) => ds.map((d) => ({ ...(d as object), shadow: null }));

describe('shadow mode (§4.1)', () => {
  it('decides exactly as enforce mode and marks every decision of the run shadow: true', () => {
    const r = runEvents();
    const events = [...r.repeat(22, 'read', { p: 1 }, same), r.compaction(), ...r.repeat(3, 'read', { p: 2 }, same)];
    const enforce = given(spec({})).whenAll(events);
    const shadow = given(spec({ mode: 'shadow' })).whenAll(events);
    expect(calls(enforce).map((d) => d.decision)).toContain('block');
    expect(aborts(enforce)).toHaveLength(1);
    expect(withoutShadow(shadow)).toEqual(withoutShadow(enforce));
    expect(shadow.every((d) => d.shadow === true)).toBe(true);
    expect(enforce.every((d) => d.shadow === null)).toBe(true);
  });
  it("fixes a run's mode by its agent; until the run names one, the global mode applies", () => {
    const r = runEvents();
    const p = spec({ agents: { quiet: { mode: 'shadow' } } });
    const ds = calls(given(p).whenAll([r.call('read', { p: 1 }), r.call('read', { p: 2 }, { agentId: 'quiet' }), r.call('read', { p: 3 }, { agentId: 'other' })]));
    expect(ds.map((d) => d.shadow)).toEqual([null, true, true]);
  });
  it('gives a redelivered call of a shadow run its original shadow decision', () => {
    const r = runEvents();
    const p = spec({ agents: { quiet: { mode: 'shadow' } } });
    const call = { ...r.call('read', { p: 1 }), eventId: 'e1' };
    const first = given(p).when(call).decisions;
    given(p, [call])
      .when({ ...call, agentId: 'quiet' })
      .then((ds) => expect(ds).toEqual(first));
    expect(calls(first)[0]?.shadow).toBeNull();
  });
});

describe('escalation (§4.2)', () => {
  const blocked = (r: ReturnType<typeof runEvents>) => r.repeat(20, 'read', { p: 1 }, same);
  const retry = (r: ReturnType<typeof runEvents>, extra: Record<string, unknown> = {}) => r.call('read', { p: 1 }, extra);

  it('ends the run right after the block that reaches abortAfterBlocks', () => {
    const r = runEvents();
    const p = spec({ escalation: { abortAfterBlocks: 3 } });
    const [b1, b2, b3] = [retry(r), retry(r), retry(r)];
    given(p, [...blocked(r), b1!, b2!])
      .when(b3!)
      .then((ds) => {
        expect(ds.map((d) => d.type)).toEqual(['tool_decision', 'run_abort']);
        expect(ds[0]).toMatchObject({ decision: 'block', detector: 'generic_repeat', count: 20 });
        const abort = ds[1] as RunAbort;
        expect(abort).toMatchObject({ detector: 'block_escalation', count: 3, toolName: 'read', runId: 'run-1', sessionKey: 's', ts: b3!.ts, shadow: null });
        expect(abort.evidence).toEqual({ toolCallIds: [b1!.toolCallId, b2!.toolCallId, b3!.toolCallId], since: b1!.ts });
        for (const part of ['block_escalation', 'read', '3']) expect(abort.message).toContain(part);
      });
  });
  it('does not end the run one block below the limit', () => {
    const r = runEvents();
    const ds = given(spec({ escalation: { abortAfterBlocks: 3 } })).whenAll([...blocked(r), retry(r), retry(r)]);
    expect(aborts(ds)).toHaveLength(0);
    expect(calls(ds).filter((d) => d.decision === 'block')).toHaveLength(2);
  });
  it('aborts on the first block when the limit is 1', () => {
    const r = runEvents();
    const ds = given(spec({ escalation: { abortAfterBlocks: 1 } })).whenAll([...blocked(r), retry(r)]);
    expect(aborts(ds)).toMatchObject([{ detector: 'block_escalation', count: 1 }]);
  });
  it("blocks every later call with the abort's detector, count and evidence, without counting them again", () => {
    const r = runEvents();
    const p = spec({ escalation: { abortAfterBlocks: 2 } });
    const ds = given(p).whenAll([...blocked(r), retry(r), retry(r), r.call('write', { p: 9 }), retry(r), retry(r)]);
    const abort = aborts(ds);
    expect(abort).toHaveLength(1);
    const after = calls(ds).slice(22);
    expect(after).toHaveLength(3);
    for (const d of after) expect(d).toMatchObject({ decision: 'block', detector: 'block_escalation', count: 2, level: 'critical', notify: true, evidence: abort[0]!.evidence });
    expect(after[0]?.message).toContain('write');
  });
  it('counts blocks from the run start; a run that names an agent with a lower limit aborts on its next block', () => {
    const r = runEvents();
    const p = spec({ escalation: { abortAfterBlocks: 5 }, agents: { strict: { escalation: { abortAfterBlocks: 3 } } } });
    const ds = given(p).whenAll([...blocked(r), retry(r), retry(r), retry(r), retry(r), r.call('list', { q: 1 }, { agentId: 'strict' }), retry(r)]);
    expect(aborts(ds)).toMatchObject([{ detector: 'block_escalation', count: 5 }]);
    expect(ds.at(-1)).toMatchObject({ type: 'run_abort' });
  });
  it('keeps an escalation set globally for an agent whose block does not mention it', () => {
    const r = runEvents();
    const p = spec({ escalation: { abortAfterBlocks: 2 }, agents: { a: { mode: 'shadow' } } });
    const ds = given(p).whenAll([r.call('x', { p: 0 }, { agentId: 'a' }), ...blocked(r), retry(r), retry(r)]);
    expect(aborts(ds)).toMatchObject([{ detector: 'block_escalation', count: 2, shadow: true }]);
  });
  it('lets the first abort stand: a compaction abort is never followed by an escalation', () => {
    const r = runEvents();
    const p = spec({ escalation: { abortAfterBlocks: 1 } });
    const ds = given(p).whenAll([r.compaction(), ...r.repeat(3, 'read', { p: 1 }, same), retry(r), retry(r)]);
    expect(aborts(ds)).toMatchObject([{ detector: 'compaction_loop_persisted', count: 3 }]);
    expect(
      calls(ds)
        .slice(-2)
        .map((d) => d.detector),
    ).toEqual(['compaction_loop_persisted', 'compaction_loop_persisted']);
  });
  it('gives a redelivered escalating call only its tool_decision again', () => {
    const r = runEvents();
    const p = spec({ escalation: { abortAfterBlocks: 1 } });
    const history = blocked(r);
    const call = retry(r, { eventId: 'e-21' });
    const first = given(p, history).when(call).decisions;
    expect(first.map((d) => d.type)).toEqual(['tool_decision', 'run_abort']);
    given(p, [...history, call])
      .when(call)
      .then((ds) => expect(ds).toEqual([first[0]]));
  });
  it('is off by default: blocks go on without an abort', () => {
    const r = runEvents();
    const ds = given(spec({})).whenAll([...blocked(r), ...Array.from({ length: 30 }, () => retry(r))]);
    expect(aborts(ds)).toHaveLength(0);
  });
});

describe('per-tool policy (§4.3)', () => {
  it('allows an exempt tool however often it repeats, and records neither its calls nor its outcomes', () => {
    const r = runEvents();
    const p = spec({ tools: { 'mcp__*__read_output': { exempt: true } } });
    const events = r.repeat(40, 'mcp__jobs__read_output', { id: 1 }, same);
    expect(calls(given(p).whenAll(events)).every((d) => d.decision === 'allow')).toBe(true);
    expect(fold(p, p.initialState, events).state.history).toHaveLength(0);
  });
  it('keeps exempt outcomes out of the post-compaction window', () => {
    const r = runEvents();
    const p = spec({ tools: { poll_job: { exempt: true } } });
    const ds = given(p).whenAll([r.compaction(), ...r.repeat(5, 'poll_job', { id: 1 }, same), ...r.repeat(2, 'read', { p: 1 }, same)]);
    expect(aborts(ds)).toHaveLength(0);
    const then = given(p).whenAll([r.compaction(), ...r.repeat(5, 'poll_job', { id: 1 }, same), ...r.repeat(3, 'read', { p: 1 }, same)]);
    expect(aborts(then)).toMatchObject([{ count: 3, toolName: 'read' }]);
  });
  it('still blocks an exempt tool in an aborted run', () => {
    const r = runEvents();
    const p = spec({ tools: { poll_job: { exempt: true } } });
    given(p, [r.compaction(), ...r.repeat(3, 'read', { p: 1 }, same)])
      .when(r.call('poll_job', { id: 1 }))
      .then((ds) => {
        expect(ds).toMatchObject([{ decision: 'block', detector: 'compaction_loop_persisted' }]);
      });
  });
  it('makes a tool with poll: true a known poll: warns at 10 and blocks at 20 as known_poll_no_progress', () => {
    const r = runEvents();
    const ds = calls(given(spec({ tools: { wait_for_job: { poll: true } } })).whenAll(r.repeat(21, 'wait_for_job', { id: 7 }, same)));
    expect(ds[9]?.decision).toBe('allow');
    expect(ds[10]).toMatchObject({ decision: 'warn', detector: 'known_poll_no_progress', count: 10 });
    expect(ds[20]).toMatchObject({ decision: 'block', detector: 'known_poll_no_progress', count: 20 });
  });
  it('never flags a poll: true tool whose result keeps changing, not even as a generic repeat', () => {
    const r = runEvents();
    const ds = calls(given(spec({ tools: { wait_for_job: { poll: true } } })).whenAll(r.repeat(30, 'wait_for_job', { id: 7 }, (i) => `line ${i}`)));
    expect(ds.every((d) => d.decision === 'allow')).toBe(true);
  });
  it('makes command_status with poll: false an ordinary tool (generic_repeat)', () => {
    const r = runEvents();
    const ds = calls(given(spec({ tools: { command_status: { poll: false } } })).whenAll(r.repeat(11, 'command_status', { id: 1 }, (i) => `s${i}`)));
    expect(ds[10]).toMatchObject({ decision: 'warn', detector: 'generic_repeat', count: 10 });
  });
  it("applies a tool's own thresholds: warns at exactly 15, not at 14, blocks at 30", () => {
    const r = runEvents();
    const p = spec({ tools: { exec: { warningThreshold: 15, criticalThreshold: 30 } } }, { enabled: true, historySize: 40 });
    const ds = calls(given(p).whenAll(r.repeat(31, 'exec', { command: 'make' }, same)));
    expect(ds[14]?.decision).toBe('allow');
    expect(ds[15]).toMatchObject({ decision: 'warn', detector: 'generic_repeat', count: 15 });
    expect(ds[29]).toMatchObject({ decision: 'warn', count: 29 });
    // The global threshold (30) is clamped to 31 for exec, so the block is generic_repeat.
    expect(ds[30]).toMatchObject({ decision: 'block', detector: 'generic_repeat', count: 30 });
    const other = calls(given(p).whenAll(r.repeat(11, 'read', { p: 1 }, same)));
    expect(other[10]).toMatchObject({ decision: 'warn', count: 10 });
  });
  it("re-clamps from the run's resolved global threshold: warning 40 gives critical 41 and global 42", () => {
    const r = runEvents();
    const p = spec({ tools: { exec: { warningThreshold: 40 } } }, { enabled: true, historySize: 60 });
    const ds = calls(given(p).whenAll(r.repeat(43, 'exec', { command: 'make' }, same)));
    expect(ds[39]?.decision).toBe('allow');
    expect(ds[40]).toMatchObject({ decision: 'warn', count: 40 });
    expect(ds[41]).toMatchObject({ decision: 'block', detector: 'generic_repeat', count: 41 });
  });
  it("raises a tool's critical threshold above the run's warning threshold when it is set lower", () => {
    const r = runEvents();
    const p = spec({ tools: { exec: { criticalThreshold: 5 } } });
    const ds = calls(given(p).whenAll(r.repeat(12, 'exec', { command: 'make' }, same)));
    expect(ds[10]).toMatchObject({ decision: 'warn', count: 10 });
    expect(ds[11]).toMatchObject({ decision: 'block', count: 11 });
  });
  const warnAt = (p: ReturnType<typeof spec>, tool: string, agentId?: string) => {
    const r = runEvents();
    const events = r.repeat(12, tool, { a: 1 }, (i) => `v${i}`).map((e) => (agentId ? { ...e, agentId } : e));
    return calls(given(p).whenAll(events)).findIndex((d) => d.decision === 'warn');
  };
  it('uses the exact key, else the matching pattern with most characters other than *, ties to the first', () => {
    const tools = { 'mcp__*': { exempt: true }, 'mcp__fs*': { warningThreshold: 3 }, '*__write': { warningThreshold: 2 }, mcp__fs__write: { warningThreshold: 4 } };
    const p = spec({ tools });
    expect(warnAt(p, 'mcp__fs__write')).toBe(4);
    expect(warnAt(p, 'mcp__db__write')).toBe(2);
    expect(warnAt(p, 'mcp__fsx__write')).toBe(3);
    const swapped = spec({ tools: { '*__write': { warningThreshold: 2 }, 'mcp__fs*': { warningThreshold: 3 } } });
    expect(warnAt(swapped, 'mcp__fsx__write')).toBe(2);
    expect(warnAt(p, 'mcp__db__read')).toBe(-1);
  });
  it('matches case-sensitively and over the whole name; * also matches nothing', () => {
    const p = spec({ tools: { 'mcp__*': { warningThreshold: 2 }, 'a*b*c': { warningThreshold: 3 } } });
    expect(warnAt(p, 'MCP__db__read')).toBe(10);
    expect(warnAt(p, 'xmcp__db__read')).toBe(10);
    expect(warnAt(p, 'mcp__')).toBe(2);
    expect(warnAt(p, 'abc')).toBe(3);
    expect(warnAt(p, 'a-b-c')).toBe(3);
    expect(warnAt(p, 'abcd')).toBe(10);
    expect(warnAt(p, 'a*b*c')).toBe(3);
  });
});

describe('per-agent tool entries (§4 resolution)', () => {
  it("merges an agent's entry into the global one field by field", () => {
    const r = runEvents();
    const p = spec({ tools: { exec: { poll: true, warningThreshold: 3 } }, agents: { a: { tools: { exec: { warningThreshold: 5 } } } } });
    const ds = calls(given(p).whenAll(r.repeat(6, 'exec', { c: 1 }, same).map((e) => ({ ...e, agentId: 'a' }) as RawToolEvent)));
    expect(ds.findIndex((d) => d.decision === 'warn')).toBe(5);
    expect(ds[5]).toMatchObject({ detector: 'known_poll_no_progress' });
  });
  it("puts an agent's new keys after the global ones when patterns tie, and keeps an overwritten key in its place", () => {
    const r = runEvents();
    const warnAt = (p: ReturnType<typeof spec>, tool: string) =>
      calls(given(p).whenAll(r.repeat(12, tool, { a: 1 }, (i) => `v${i}`).map((e) => ({ ...e, agentId: 'a' }) as RawToolEvent))).findIndex((d) => d.decision === 'warn');
    expect(warnAt(spec({ tools: { '*__write': { warningThreshold: 2 } }, agents: { a: { tools: { 'mcp__fs*': { warningThreshold: 3 } } } } }), 'mcp__fsx__write')).toBe(2);
    expect(
      warnAt(
        spec({ tools: { 'x*': {}, '*__write': { warningThreshold: 2 }, 'mcp__fs*': {} }, agents: { a: { tools: { 'mcp__fs*': { warningThreshold: 3 } } } } }),
        'mcp__fsx__write',
      ),
    ).toBe(2);
    expect(
      warnAt(spec({ tools: { 'mcp__fs*': {}, '*__write': { warningThreshold: 2 } }, agents: { a: { tools: { 'mcp__fs*': { warningThreshold: 3 } } } } }), 'mcp__fsx__write'),
    ).toBe(3);
  });
});
