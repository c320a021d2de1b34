// Conformance audit of docs/behaviour.md §4.1–§4.5 (tool side): the cases a strict reader of
// each sentence would write, at its boundaries. Complements policy/transient/evidence specs.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { given } from '../kernel/spec.js';
import { parseToolEvent, type ToolOutcome } from './events.js';
import type { LoopDetectionBlock, RunAbort, ToolDecision, ToolLoopConfig } from './index.js';
import { globMatch, toolMatcher, type ToolEntry, type ToolPolicyBlock } from './policy.js';
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
type Run = ReturnType<typeof runEvents>;
/** 20 identical call+outcome pairs: the next identical call is blocked (generic_repeat, 20). */
const toBlock = (r: Run) => r.repeat(20, 'read', { p: 1 }, same);
const retry = (r: Run, extra: Record<string, unknown> = {}) => r.call('read', { p: 1 }, extra);
const withAgent = (events: readonly RawToolEvent[], agentId: string) => events.map((e) => ({ ...e, agentId }) as RawToolEvent);

function transient(fields: Record<string, unknown>): boolean {
  const r = parseToolEvent({ type: 'tool_outcome', ts: 1, runId: 'r', toolName: 'fetch', args: { u: 1 }, ...fields });
  if (!r.ok) throw new Error(r.reason);
  return (r.value as ToolOutcome).transient === true;
}

describe('§4.4 rule 2: status, statusCode and code', () => {
  it.each([408, 425, 429, 500, 503, 599])('status %i is transient, as status or statusCode', (status) => {
    expect(transient({ error: { message: 'failed', status } })).toBe(true);
    expect(transient({ error: { message: 'failed', statusCode: status } })).toBe(true);
  });
  it.each([200, 404, 407, 409, 424, 426, 428, 430, 499, 600])('status %i is not', (status) => {
    expect(transient({ error: { message: 'failed', status } })).toBe(false);
    expect(transient({ error: { message: 'failed', statusCode: status } })).toBe(false);
  });
  it('takes either field: a transient statusCode next to a non-transient status still counts', () => {
    expect(transient({ error: { message: 'failed', status: 400, statusCode: 503 } })).toBe(true);
    expect(transient({ error: { message: 'failed', status: 503, statusCode: 400 } })).toBe(true);
  });
  it.each(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN'])('code %s is transient', (code) => {
    expect(transient({ error: { message: 'failed', code } })).toBe(true);
  });
  it.each(['epipe', 'ENOTFOUND', 'EPIPE2', ' EPIPE', 'ECONNABORTED'])('code %j is not', (code) => {
    expect(transient({ error: { message: 'failed', code } })).toBe(false);
  });
  it('EPIPE counts only as a code: the text list does not name it', () => {
    expect(transient({ error: 'write EPIPE' })).toBe(false);
  });
  it('a string error has no status: "status 503" in prose is not rule 2, and 500 is not a text code', () => {
    expect(transient({ error: 'status 500' })).toBe(false);
    expect(transient({ error: 'status 408' })).toBe(false);
  });
});

describe('§4.4 rule 3: text, ignoring case; codes as whole words', () => {
  it.each([
    'RATE LIMIT',
    'Rate-limit',
    'RateLimitError',
    'TOO MANY REQUESTS',
    'Timed Out',
    'socketTimeout',
    'TEMPORARILY UNAVAILABLE',
    'SERVICE UNAVAILABLE',
    'Bad Gateway',
    'GATEWAY TIMEOUT',
    'Overloaded',
    'EconnReset',
    'ECONNREFUSED',
    'etimedout',
    'EAI_AGAIN',
    'Socket Hang Up',
  ])('%j is transient (contained, any case)', (text) => expect(transient({ error: `upstream said: ${text}!` })).toBe(true));
  it.each(['rate  limit', 'rate_limit', 'time out', 'timed  out', 'too many request', 'gateway time-out', 'socket hangup', 'service unavail', 'eai again', 'econn reset'])(
    'near miss %j is not',
    (text) => expect(transient({ error: text })).toBe(false),
  );
  it.each(['HTTP 429', '(502)', 'code 503.', '504', '429: slow down', 'status=503;', 'x-429', '"503"', '503\n', 'é 429'])('%j has a code as a whole word', (text) => {
    expect(transient({ error: text })).toBe(true);
  });
  it.each(['HTTP429', '5030', '1429', '429x', '_503', '503_', 'é429', '429é', 'Ω504', '𝐀429', '429𝐀', '٣429', '429٣', '429০'])(
    '%j has a code next to a letter, digit or _ (Unicode included)',
    (text) => expect(transient({ error: text })).toBe(false),
  );
  it('reads the message, else the name: a name is not read when a message is present', () => {
    expect(transient({ error: { name: 'TimeoutError', message: 'boom' } })).toBe(false);
    expect(transient({ error: { name: 'TimeoutError' } })).toBe(true);
    expect(transient({ error: { name: 'Error', message: 'HTTP 503' } })).toBe(true);
  });
});

describe('§4.4 rule 1 and the preconditions', () => {
  it('transient: false wins over a transient status, code and text', () => {
    expect(transient({ transient: false, error: { message: 'Gateway Timeout', status: 504, code: 'ETIMEDOUT' } })).toBe(false);
  });
  it('transient: true makes any outcome transient, a result or an unknown-tool error included', () => {
    expect(transient({ transient: true, result: { ok: 1 } })).toBe(true);
    expect(transient({ transient: true, resultHash: 'abc' })).toBe(true);
    expect(transient({ transient: true, error: 'Unknown tool: foo' })).toBe(true);
  });
  it('an outcome with a result or resultHash and an error is judged by rule 1 only', () => {
    expect(transient({ result: { ok: 1 }, error: { message: 'rate limit', status: 503 } })).toBe(false);
    expect(transient({ resultHash: 'abc', error: 'timeout' })).toBe(false);
  });
  it.each(['Unknown tool: fetch timed out', 'unknown tool "x" (503)', 'Tool x not found: rate limit'])('%j names an unknown tool: never transient', (text) => {
    expect(transient({ error: text })).toBe(false);
    expect(transient({ error: { message: text, status: 503, code: 'ECONNRESET' } })).toBe(false);
  });
  it('null counts as absent for transient and result', () => {
    expect(transient({ transient: null, error: 'timeout' })).toBe(true);
    expect(transient({ result: null, error: 'timeout' })).toBe(true);
  });
});

describe('§4.4 folding', () => {
  const flaky = (r: Run, n: number, error: unknown, extra: Record<string, unknown> = {}) =>
    Array.from({ length: n }, () => [r.call('fetch', { u: 1 }), { ...r.error('fetch', { u: 1 }, error), ...extra }]).flat();
  it('a transient outcome warns on repetition (rule 8) and is never blocked', () => {
    const r = runEvents();
    const ds = calls(
      given(spec({ transientErrors: true }, { enabled: true, historySize: 40 })).whenAll([...flaky(r, 30, { message: 'x', status: 503 }), r.call('fetch', { u: 1 })]),
    );
    expect(ds[10]).toMatchObject({ decision: 'warn', detector: 'generic_repeat', count: 10 });
    expect(ds.every((d) => d.decision !== 'block')).toBe(true);
    expect(ds[30]).toMatchObject({ decision: 'warn', count: 30 });
  });
  it('transient: false and result+error outcomes are loop evidence as usual', () => {
    const r = runEvents();
    const ds = calls(given(spec({ transientErrors: true })).whenAll([...flaky(r, 20, 'timeout', { transient: false }), r.call('fetch', { u: 1 })]));
    expect(ds[20]).toMatchObject({ decision: 'block', detector: 'generic_repeat', count: 20 });
    const q = runEvents();
    const both = calls(given(spec({ transientErrors: true })).whenAll([...flaky(q, 20, { message: 'x', status: 503 }, { result: { ok: 1 } }), q.call('fetch', { u: 1 })]));
    expect(both[20]).toMatchObject({ decision: 'block', count: 20 });
  });
  it("an agent's transientErrors overrides the global one", () => {
    const r = runEvents();
    const p = spec({ transientErrors: false, agents: { a: { transientErrors: true } } });
    const ds = calls(given(p).whenAll(withAgent([...flaky(r, 20, 'rate limit'), r.call('fetch', { u: 1 })], 'a')));
    expect(ds[20]?.decision).toBe('warn');
  });
  it('a transient outcome after compaction does not use up the window', () => {
    const r = runEvents();
    const p = spec({ transientErrors: true });
    const ds = given(p).whenAll([r.compaction(), ...flaky(r, 5, 'socket hang up'), ...r.repeat(3, 'read', { p: 1 }, same)]);
    expect(aborts(ds)).toMatchObject([{ detector: 'compaction_loop_persisted', count: 3, toolName: 'read' }]);
  });
});

describe('§4.2 escalation at its boundaries', () => {
  it('aborts on the next block once a run names an agent whose limit is below the blocks so far, counting them all', () => {
    const r = runEvents();
    const p = spec({ escalation: { abortAfterBlocks: 10 }, agents: { strict: { escalation: { abortAfterBlocks: 2 } } } });
    const before = [...toBlock(r), retry(r), retry(r), retry(r), retry(r)];
    const ds = given(p).whenAll([...before, r.call('list', { q: 1 }, { agentId: 'strict' }), retry(r)]);
    expect(aborts(ds)).toMatchObject([{ detector: 'block_escalation', count: 5, toolName: 'read' }]);
    expect(ds.at(-2)).toMatchObject({ type: 'tool_decision', decision: 'block', detector: 'generic_repeat' });
  });
  it('counts blocks made before escalation applied: an agent that switches it on aborts at its next block', () => {
    const r = runEvents();
    const p = spec({ agents: { strict: { escalation: { abortAfterBlocks: 3 } } } });
    const ds = given(p).whenAll([...toBlock(r), retry(r), retry(r), retry(r), retry(r, { agentId: 'strict' })]);
    expect(aborts(ds)).toMatchObject([{ count: 4 }]);
  });
  it('does not count warnings, allows or the blocks of the aborted run', () => {
    const r = runEvents();
    const p = spec({ escalation: { abortAfterBlocks: 2 } });
    const ds = given(p).whenAll([...toBlock(r), retry(r), retry(r), retry(r), retry(r), r.call('x', { y: 1 })]);
    expect(aborts(ds)).toHaveLength(1);
    expect(calls(ds).slice(-3)).toMatchObject([
      { detector: 'block_escalation', count: 2 },
      { detector: 'block_escalation', count: 2 },
      { detector: 'block_escalation', count: 2 },
    ]);
    const warnOnly = given(p).whenAll(r.repeat(19, 'w', { a: 1 }, (i) => i));
    expect(aborts(warnOnly)).toHaveLength(0);
  });
  it('gives a redelivered earlier call, after the abort, only its original block', () => {
    const r = runEvents();
    const p = spec({ escalation: { abortAfterBlocks: 2 } });
    const first = retry(r, { eventId: 'e1' });
    const history = [...toBlock(r), first, retry(r)];
    const ds = given(p, history).when(first).decisions;
    expect(ds).toHaveLength(1);
    expect(ds[0]).toMatchObject({ type: 'tool_decision', decision: 'block', detector: 'generic_repeat', count: 20 });
  });
  it('lets an escalation abort stand over a later compaction loop', () => {
    const r = runEvents();
    const p = spec({ escalation: { abortAfterBlocks: 1 } });
    const ds = given(p).whenAll([...toBlock(r), retry(r), r.compaction(), ...r.repeat(3, 'z', { a: 1 }, same), r.call('z', { a: 2 })]);
    expect(aborts(ds)).toMatchObject([{ detector: 'block_escalation', count: 1 }]);
    expect(ds.at(-1)).toMatchObject({ decision: 'block', detector: 'block_escalation', count: 1 });
  });
  it('blocks an exempt call of an escalated run with the abort, uncounted', () => {
    const r = runEvents();
    const p = spec({ escalation: { abortAfterBlocks: 1 }, tools: { ping: { exempt: true } } });
    const ds = given(p).whenAll([...toBlock(r), retry(r), r.call('ping', {}), r.call('ping', {})]);
    expect(calls(ds).slice(-2)).toMatchObject([
      { decision: 'block', detector: 'block_escalation', count: 1 },
      { decision: 'block', detector: 'block_escalation', count: 1 },
    ]);
    expect(aborts(ds)).toHaveLength(1);
  });
  it('marks the escalation abort and every later block shadow: true in a shadow run', () => {
    const r = runEvents();
    const p = spec({ mode: 'shadow', escalation: { abortAfterBlocks: 1 } });
    const ds = given(p).whenAll([...toBlock(r), retry(r), r.call('x', {})]);
    expect(ds.slice(-3)).toMatchObject([
      { type: 'tool_decision', decision: 'block', shadow: true },
      { type: 'run_abort', detector: 'block_escalation', shadow: true },
      { type: 'tool_decision', decision: 'block', detector: 'block_escalation', shadow: true },
    ]);
  });
  it('evidence: since is the first block even without a toolCallId; ids are the newest 20 blocked calls', () => {
    const r = runEvents();
    const p = spec({ escalation: { abortAfterBlocks: 23 } });
    const first = retry(r, { toolCallId: undefined });
    const rest = Array.from({ length: 22 }, () => retry(r));
    const ds = given(p, [...toBlock(r), first]).whenAll(rest);
    const abort = aborts(ds)[0]!;
    expect(abort.count).toBe(23);
    expect(abort.evidence).toEqual({ toolCallIds: rest.slice(-20).map((e) => e.toolCallId), since: first.ts });
  });
});

describe('§4.3 per-tool entries at their boundaries', () => {
  const warnAt = (p: ReturnType<typeof spec>, tool: string) => {
    const r = runEvents();
    return calls(given(p).whenAll(r.repeat(12, tool, { a: 1 }, (i) => `v${i}`))).findIndex((d) => d.decision === 'warn');
  };
  it('prefers the exact key to any pattern, however long', () => {
    expect(warnAt(spec({ tools: { 'mcp__fs__writ*': { warningThreshold: 2 }, mcp__fs__write: { warningThreshold: 5 } } }), 'mcp__fs__write')).toBe(5);
  });
  it('weighs a pattern by its characters other than *: "**ab**" (2) loses to "a*c" (2 earlier) and to "abc*" (3)', () => {
    expect(warnAt(spec({ tools: { 'a*c': { warningThreshold: 2 }, '**ab**': { warningThreshold: 3 } } }), 'abc')).toBe(2);
    expect(warnAt(spec({ tools: { '**ab**': { warningThreshold: 3 }, 'a*c': { warningThreshold: 2 } } }), 'abc')).toBe(3);
    expect(warnAt(spec({ tools: { '**ab**': { warningThreshold: 3 }, 'abc*': { warningThreshold: 4 } } }), 'abc')).toBe(4);
  });
  it('lets "*" match every name, and a more literal pattern beat it', () => {
    expect(warnAt(spec({ tools: { '*': { warningThreshold: 2 } } }), 'anything')).toBe(2);
    expect(warnAt(spec({ tools: { '*': { warningThreshold: 2 }, 'a*': { warningThreshold: 3 } } }), 'anything')).toBe(3);
  });
  it('does not treat regex characters in a pattern as special', () => {
    expect(warnAt(spec({ tools: { 'a.c*': { warningThreshold: 2 } } }), 'abcd')).toBe(10);
    expect(warnAt(spec({ tools: { 'a.c*': { warningThreshold: 2 } } }), 'a.cd')).toBe(2);
  });
  it("takes a per-tool warning from the run's resolved thresholds: warning 45 over 10/40/41 gives 45/46/47", () => {
    const r = runEvents();
    const p = spec({ tools: { exec: { warningThreshold: 45 } } }, { enabled: true, historySize: 100, criticalThreshold: 40 });
    const ds = calls(given(p).whenAll(r.repeat(48, 'exec', { c: 1 }, same)));
    expect(ds[44]?.decision).toBe('allow');
    expect(ds[45]).toMatchObject({ decision: 'warn', count: 45 });
    expect(ds[46]).toMatchObject({ decision: 'block', detector: 'generic_repeat', count: 46 });
    expect(ds[47]).toMatchObject({ decision: 'block', detector: 'global_circuit_breaker', count: 47 });
  });
  it('keeps the per-tool critical when it is already below the run global: critical 25 under 10/20/30 blocks at 25, not at 20', () => {
    const r = runEvents();
    const p = spec({ tools: { exec: { criticalThreshold: 25 } } }, { enabled: true, historySize: 40 });
    const ds = calls(given(p).whenAll(r.repeat(26, 'exec', { c: 1 }, same)));
    expect(ds[20]).toMatchObject({ decision: 'warn', count: 20 });
    expect(ds[25]).toMatchObject({ decision: 'block', detector: 'generic_repeat', count: 25 });
  });
  it("uses the call's thresholds for ping-pong too", () => {
    const r = runEvents();
    const p = spec({ tools: { b: { warningThreshold: 3, criticalThreshold: 5 } } });
    const side = (tool: string) => r.repeat(1, tool, { [tool]: 1 }, same);
    const history = [...side('b'), ...side('a')];
    const warnB = calls(given(p, history).when(r.call('b', { b: 1 })).decisions);
    expect(warnB).toMatchObject([{ decision: 'warn', detector: 'ping_pong', count: 3 }]);
    const longer = [...history, ...side('b'), ...side('a')];
    const blockB = calls(given(p, longer).when(r.call('b', { b: 1 })).decisions);
    expect(blockB).toMatchObject([{ decision: 'block', detector: 'ping_pong', count: 5 }]);
    const allowA = calls(given(p, [...longer, ...side('b')]).when(r.call('a', { a: 1 })).decisions);
    expect(allowA).toMatchObject([{ decision: 'allow' }]);
  });
  it('poll: true keeps the §2.2 hashing and only changes the class: a changing result never warns', () => {
    const r = runEvents();
    const ds = calls(given(spec({ tools: { 'job_*': { poll: true } } })).whenAll(r.repeat(25, 'job_status', { id: 1 }, (i) => `line ${i}`)));
    expect(ds.every((d) => d.decision === 'allow')).toBe(true);
  });
  it('poll: false on process/poll makes it generic: warns on recentCount, not on the streak', () => {
    const r = runEvents();
    const ds = calls(given(spec({ tools: { process: { poll: false } } })).whenAll(r.repeat(11, 'process', { action: 'poll', id: 1 }, (i) => `out ${i}`)));
    expect(ds[10]).toMatchObject({ decision: 'warn', detector: 'generic_repeat', count: 10 });
  });
  it("ignores an exempt tool's outcomes even when they would append a record", () => {
    const r = runEvents();
    const p = spec({ tools: { ping: { exempt: true } } });
    const outcomes = Array.from({ length: 15 }, () => r.outcome('ping', {}, 'same'));
    const ds = calls(given(p).whenAll([...outcomes, r.call('ping', {})]));
    expect(ds).toMatchObject([{ decision: 'allow' }]);
  });
  it('exempts a tool whatever the loop detection says, and the exempt call is allowed with enabled unset', () => {
    const r = runEvents();
    const p = toolLoopSpec(cfg({ tools: { ping: { exempt: true } } }, {}));
    const ds = calls(given(p).whenAll(r.repeat(25, 'ping', {}, same)));
    expect(ds.every((d) => d.decision === 'allow')).toBe(true);
  });
});

// The compaction abort's evidence: evidence.spec.ts ('evidence on run_abort').
describe('§4.5 evidence at its boundaries', () => {
  const p = spec({}, { enabled: true, historySize: 60 });
  const callIds = (events: readonly RawToolEvent[]) => events.filter((e) => e.type === 'tool_call' && e.toolCallId !== undefined).map((e) => e.toolCallId);
  it('warn (rule 8) lists every same call, with or without a result, any result', () => {
    const r = runEvents();
    const h = [r.call('read', { p: 1 }), ...r.repeat(8, 'read', { p: 1 }, (i) => i), r.call('read', { p: 1 })];
    given(p, h)
      .when(r.call('read', { p: 1 }))
      .then((ds) => expect(ds[0]).toMatchObject({ decision: 'warn', count: 10, evidence: { toolCallIds: callIds(h), since: h[0]!.ts } }));
  });
  it('the no-progress streak of a block skips same calls without a result and stops at a different result', () => {
    const r = runEvents();
    const old = r.repeat(1, 'read', { p: 1 }, () => 'other');
    const streak = r.repeat(20, 'read', { p: 1 }, same);
    const pending = r.call('read', { p: 1 });
    given(p, [...old, ...streak, pending])
      .when(r.call('read', { p: 1 }))
      .then((ds) => {
        expect(ds[0]).toMatchObject({ decision: 'block', detector: 'generic_repeat', count: 20 });
        expect(ds[0]!.evidence).toEqual({ toolCallIds: callIds(streak), since: streak[0]!.ts });
      });
  });
  it('ping-pong lists the tail (not the current call), and since is its oldest record', () => {
    const r = runEvents();
    const noise = r.repeat(1, 'a', { x: 1 }, same);
    const tail: RawToolEvent[] = [];
    for (let i = 0; i < 5; i++) tail.push(...r.repeat(1, 'a', { x: 1 }, same), ...r.repeat(1, 'b', { y: 1 }, same));
    const cur = r.call('a', { x: 1 });
    given(p, [...noise, ...tail])
      .when(cur)
      .then((ds) => {
        // History a | a,b,…,a,b: walking back from the newest b, the tail is the ten alternating records.
        expect(ds[0]).toMatchObject({ decision: 'warn', detector: 'ping_pong', count: 11 });
        expect(ds[0]!.evidence).toEqual({ toolCallIds: callIds(tail), since: tail[0]!.ts });
      });
  });
  it('unknown-tool streak evidence: the streak only, since its first record', () => {
    const r = runEvents();
    const other = [r.call('ghost', {}), r.error('ghost', {}, 'Unknown tool: other')];
    const streak = Array.from({ length: 10 }, () => [r.call('ghost', {}), r.error('ghost', {}, 'Unknown tool: ghost')]).flat();
    given(p, [...other, ...streak])
      .when(r.call('ghost', {}))
      .then((ds) =>
        expect(ds[0]).toMatchObject({ decision: 'block', detector: 'unknown_tool_repeat', count: 10, evidence: { toolCallIds: callIds(streak), since: streak[0]!.ts } }),
      );
  });
  it('poll warn evidence is the streak', () => {
    const r = runEvents();
    const h = r.repeat(10, 'command_status', { id: 1 }, same);
    given(p, h)
      .when(r.call('command_status', { id: 1 }))
      .then((ds) => expect(ds[0]).toMatchObject({ decision: 'warn', detector: 'known_poll_no_progress', count: 10, evidence: { toolCallIds: callIds(h), since: h[0]!.ts } }));
  });
  it('no evidence on allow, in enforce or shadow mode', () => {
    const r = runEvents();
    expect(calls(given(spec({})).whenAll([r.call('x', {})]))).toMatchObject([{ decision: 'allow', evidence: null }]);
    expect(calls(given(spec({ mode: 'shadow' })).whenAll([r.call('x', {})]))).toMatchObject([{ decision: 'allow', evidence: null, shadow: true }]);
  });
});

describe('§4.1 shadow with everything on', () => {
  it('marks allows, warns, blocks and both aborts of a shadow agent, and only of that run', () => {
    const r = runEvents('r1');
    const q = runEvents('r2');
    const p = spec({ agents: { s: { mode: 'shadow', escalation: { abortAfterBlocks: 1 } } } });
    const shadowRun = given(p).whenAll(withAgent([...toBlock(r), retry(r), r.call('x', {})], 's'));
    expect(shadowRun.every((d) => (d as Decision).shadow === true)).toBe(true);
    expect(aborts(shadowRun)).toHaveLength(1);
    const other = given(p).whenAll([...toBlock(q), q.call('read', { p: 1 })]);
    expect(other.every((d) => (d as Decision).shadow === null)).toBe(true);
  });
});

describe('§4.2 bookkeeping on generated runs', () => {
  const T0 = 1_700_000_000_000;
  const limits: Record<string, number> = { strict: 2 };
  const p = toolLoopSpec(
    cfg(
      {
        escalation: { abortAfterBlocks: 4 },
        transientErrors: true,
        tools: { skip: { exempt: true }, 'ex*': { warningThreshold: 2, criticalThreshold: 3 } },
        agents: { strict: { escalation: { abortAfterBlocks: 2 } }, lax: { mode: 'shadow' } },
      },
      { enabled: true, warningThreshold: 3, criticalThreshold: 4, globalCircuitBreakerThreshold: 6, unknownToolThreshold: 3, historySize: 12 },
    ),
  );
  // Loopy on purpose: mostly the same call with the same result, so blocks and aborts are common.
  const often = <T>(usual: T, ...rare: T[]) => fc.oneof({ weight: 6, arbitrary: fc.constant(usual) }, ...rare.map((r) => ({ weight: 1, arbitrary: fc.constant(r) })));
  const base = fc.record({
    agentId: fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('strict', 'lax') }),
    toolCallId: fc.option(fc.constantFrom('c1', 'c2', 'c3', 'c4'), { nil: undefined }),
    toolName: often('read', 'exec', 'skip'),
    args: often({ p: 1 }, { p: 2 }),
  });
  const one = fc.oneof(
    { weight: 6, arbitrary: base.map((b) => ({ type: 'tool_call', ...b })) },
    { weight: 6, arbitrary: fc.record({ b: base, result: often('same', 'other') }).map(({ b, result }) => ({ type: 'tool_outcome', ...b, toolCallId: undefined, result })) },
    {
      weight: 1,
      arbitrary: fc
        .record({ b: base, error: fc.constantFrom('timeout', 'Unknown tool: read', 'denied') })
        .map(({ b, error }) => ({ type: 'tool_outcome', ...b, toolCallId: undefined, error })),
    },
    { weight: 1, arbitrary: fc.constant({ type: 'compaction' }) },
  );
  const stream = fc.array(fc.tuple(one, fc.integer({ min: 0, max: 9 })), { minLength: 40, maxLength: 150 }).map((raw) => {
    const events: RawToolEvent[] = [];
    raw.forEach(([e, again], i) => {
      const ev = { sessionKey: 's', runId: 'r', ...e, ts: T0 + i * 1000, eventId: `e${i}` } as unknown as RawToolEvent;
      events.push(ev);
      // Now and then an earlier event is redelivered.
      if (again === 0 && events.length > 1) events.push(events[Math.floor(events.length / 2)]!);
    });
    return events;
  });

  it('counts §2.5 blocks from the run start, aborts once at the limit in force, and repeats the abort after it', () => {
    const seenAborts = { escalation: 0, compaction: 0, afterAgent: 0 };
    fc.assert(
      fc.property(stream, (events) => {
        let state = p.initialState;
        let agent: string | undefined;
        const blocks: RawToolEvent[] = [];
        let aborted: RunAbort | undefined;
        let guard: { remaining: number; window: Array<{ triple: string; ts: number }> } | null = null;
        const answered = new Map<string, readonly unknown[]>();
        const seen = new Set<string>();
        for (const e of events) {
          const r = given(p, [], state).when(e);
          state = r.state;
          const ds = r.decisions as readonly Decision[];
          const key = `${e.type}:${e.eventId as string}`;
          if (seen.has(key)) {
            expect(ds).toEqual(e.type === 'tool_call' ? answered.get(key) : []);
            continue;
          }
          seen.add(key);
          agent ??= e.agentId as string | undefined;
          if (e.type === 'tool_call') {
            answered.set(key, ds.slice(0, 1));
            const d = ds[0] as ToolDecision;
            expect(d.type).toBe('tool_decision');
            if (aborted !== undefined) {
              expect(ds).toHaveLength(1);
              expect(d).toMatchObject({ decision: 'block', detector: aborted.detector, count: aborted.count, evidence: aborted.evidence });
              continue;
            }
            if (d.decision !== 'block') {
              expect(ds).toHaveLength(1);
              continue;
            }
            blocks.push(e);
            const limit = (agent !== undefined ? limits[agent] : undefined) ?? 4;
            if (blocks.length < limit) {
              expect(ds).toHaveLength(1);
              continue;
            }
            const ids = blocks.map((b) => b.toolCallId).filter((id) => id !== undefined);
            expect(ds).toHaveLength(2);
            expect(ds[1]).toMatchObject({
              type: 'run_abort',
              detector: 'block_escalation',
              count: blocks.length,
              toolName: e.toolName,
              ts: e.ts,
              evidence: { toolCallIds: ids.slice(-20), since: blocks[0]!.ts },
            });
            aborted = ds[1] as RunAbort;
            seenAborts.escalation++;
            if (agent === 'strict') seenAborts.afterAgent++;
          } else if (e.type === 'compaction') {
            expect(ds).toEqual([]);
            guard = { remaining: 3, window: [] };
          } else {
            // §2.6 with §4.3 (exempt outcomes ignored) and §4.4 (transient outcomes ignored).
            const counted = e.toolName !== 'skip' && e.error !== 'timeout';
            if (guard === null || !counted) {
              expect(ds).toEqual([]);
              continue;
            }
            const triple = JSON.stringify([e.toolName, e.args, e.result ?? e.error]);
            guard.window.push({ triple, ts: e.ts });
            const carrying = guard.window.filter((w) => w.triple === triple);
            if (--guard.remaining === 0) guard = null;
            if (carrying.length < 3 || aborted !== undefined) {
              expect(ds).toEqual([]);
              continue;
            }
            expect(ds).toMatchObject([
              { type: 'run_abort', detector: 'compaction_loop_persisted', count: 3, toolName: e.toolName, evidence: { toolCallIds: [], since: carrying[0]!.ts } },
            ]);
            aborted = ds[0] as RunAbort;
            seenAborts.compaction++;
          }
        }
      }),
      { numRuns: 300 },
    );
    // The generator reaches every kind of abort, so the checks above are exercised.
    expect(Math.min(seenAborts.escalation, seenAborts.compaction, seenAborts.afterAgent)).toBeGreaterThan(10);
  });
});

describe('§4.3 matching against a naive oracle', () => {
  const text = (chars: string[]) => fc.array(fc.constantFrom(...chars), { maxLength: 7 }).map((cs) => cs.join(''));
  const oracleMatch = (pattern: string, name: string) =>
    new RegExp(
      `^${pattern
        .split('*')
        .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
      's',
    ).test(name);
  const oracleEntry = (entries: ReadonlyArray<readonly [string, ToolEntry]>, name: string) => {
    const exact = entries.find(([k]) => k === name);
    if (exact) return exact[1];
    let best: readonly [string, ToolEntry] | undefined;
    const weight = (p: string) => [...p].filter((c) => c !== '*').length;
    for (const e of entries) if (e[0].includes('*') && oracleMatch(e[0], name) && (best === undefined || weight(e[0]) > weight(best[0]))) best = e;
    return best?.[1];
  };
  it('globMatch agrees with a regex: * is any run, the rest literal, whole name, case-sensitive', () => {
    fc.assert(
      fc.property(text(['a', 'A', 'b', '*', '.']), text(['a', 'A', 'b', '.', '\n']), (pattern, name) => {
        expect(globMatch(pattern, name)).toBe(oracleMatch(pattern, name));
      }),
      { numRuns: 2000 },
    );
  });
  it('picks the exact key, else the most literal matching pattern, ties to the first', () => {
    const entries = fc.uniqueArray(text(['a', 'b', '*']), { minLength: 1, maxLength: 6 }).map((keys) => keys.map((k, i) => [k, { warningThreshold: i + 1 }] as const));
    fc.assert(
      fc.property(entries, text(['a', 'b']), (es, name) => {
        expect(toolMatcher(es)(name)).toBe(oracleEntry(es, name));
      }),
      { numRuns: 2000 },
    );
  });
});
