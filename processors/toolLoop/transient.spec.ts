// Transient errors are not loop evidence (docs/behaviour.md §4.4).
import { describe, expect, it } from 'vitest';
import { given } from '../kernel/spec.js';
import { parseToolEvent, type ToolOutcome } from './events.js';
import type { RunAbort, ToolDecision, ToolLoopConfig } from './index.js';
import { runEvents, toolLoopSpec, type RawToolEvent } from './testing/events.js';
import { transientText } from './transient.js';

const cfg = (transientErrors: boolean | undefined): ToolLoopConfig => ({
  global: { enabled: true },
  agents: {},
  runTtlMs: 86_400_000,
  policy: transientErrors === undefined ? {} : { transientErrors },
});
const calls = (ds: readonly unknown[]) => ds.filter((d): d is ToolDecision => (d as ToolDecision).type === 'tool_decision');

/** Whether the parsed outcome is transient. */
function transient(fields: Record<string, unknown>): boolean {
  const r = parseToolEvent({ type: 'tool_outcome', ts: 1, runId: 'r', toolName: 'fetch', args: { u: 1 }, ...fields });
  if (!r.ok) throw new Error(r.reason);
  return (r.value as ToolOutcome).transient === true;
}

describe('which outcomes are transient', () => {
  it.each([
    'rate limit',
    'Rate-Limit exceeded',
    'RATELIMIT',
    'Too Many Requests',
    'request timed out',
    'Timeout',
    'temporarily unavailable',
    'Service Unavailable',
    'bad gateway',
    'Gateway Timeout',
    'model overloaded',
    'read ECONNRESET',
    'connect econnrefused 1.2.3.4',
    'ETIMEDOUT',
    'getaddrinfo EAI_AGAIN host',
    'socket hang up',
  ])('finds %j in the error text', (text) => {
    expect(transientText(text)).toBe(true);
    expect(transient({ error: text })).toBe(true);
    expect(transient({ error: { name: 'Error', message: `upstream: ${text}` } })).toBe(true);
  });
  it.each(['429', 'HTTP 502', 'status=503;', '(504)', 'error 429: slow down', '503\nretry', 'é 502 é'])('finds the status %j as a whole word', (text) => {
    expect(transientText(text)).toBe(true);
  });
  it.each([
    '4290',
    '1429',
    'x503',
    '503x',
    '502_',
    '_504',
    'é503',
    '503ß',
    '٣503',
    '503٣',
    'rate  limit',
    'time out',
    'unavailable',
    'gateway',
    'ECONNABORTED',
    '500 Internal Server Error',
  ])('does not find %j', (text) => {
    expect(transientText(text)).toBe(false);
  });
  it.each([408, 425, 429, 500, 503, 599])('takes status or statusCode %d', (status) => {
    expect(transient({ error: { message: 'failed', status } })).toBe(true);
    expect(transient({ error: { message: 'failed', statusCode: status } })).toBe(true);
  });
  it.each([400, 407, 409, 424, 426, 499, 600])('does not take status %d', (status) => {
    expect(transient({ error: { message: 'failed', status, statusCode: status } })).toBe(false);
  });
  it.each(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN'])('takes the code %s', (code) => {
    expect(transient({ error: { message: 'failed', code } })).toBe(true);
  });
  it('takes codes exactly, and ignores a status or code of the wrong type', () => {
    expect(transient({ error: { message: 'failed', code: 'ENOENT' } })).toBe(false);
    expect(transient({ error: { message: 'failed', code: 'epipe' } })).toBe(false);
    expect(transient({ error: { message: 'failed', status: '503' } })).toBe(false);
    expect(transient({ error: { message: 'failed', code: 104 } })).toBe(false);
  });
  it('reads the text rule 1 of §2.2 reads: the message, else the name', () => {
    expect(transient({ error: { name: 'TimeoutError' } })).toBe(true);
    expect(transient({ error: { name: 'TimeoutError', message: 'no such file' } })).toBe(false);
  });
  it('takes transient: true or false as given, before anything else', () => {
    expect(transient({ result: 'ok', transient: true })).toBe(true);
    expect(transient({ resultHash: 'h', transient: true })).toBe(true);
    expect(transient({ error: { message: 'timeout', status: 503 }, transient: false })).toBe(false);
  });
  it('never judges an outcome that carries a result or resultHash by its error', () => {
    expect(transient({ result: 'partial', error: 'timeout' })).toBe(false);
    expect(transient({ resultHash: 'h', error: { message: 'x', status: 503 } })).toBe(false);
  });
  it('never takes an unknown-tool error as transient', () => {
    expect(transient({ error: 'Unknown tool: fetch_timeout' })).toBe(false);
    expect(transient({ error: { message: 'tool browse not found', status: 503 } })).toBe(false);
  });
  it('rejects a transient that is not a boolean', () => {
    const r = parseToolEvent({ type: 'tool_outcome', ts: 1, runId: 'r', toolName: 'x', args: {}, result: 1, transient: 'yes' });
    expect(!r.ok && r.reason).toContain('transient');
  });
});

describe('transient outcomes in a run', () => {
  const flaky = (r: ReturnType<typeof runEvents>, n: number): RawToolEvent[] => {
    const out: RawToolEvent[] = [];
    for (let i = 0; i < n; i++) out.push(r.call('fetch', { u: 1 }), r.error('fetch', { u: 1 }, { message: 'upstream failed', status: 503 }));
    return out;
  };
  it('with transientErrors: true, a flaky service only ever warns on repetition', () => {
    const r = runEvents();
    const ds = calls(given(toolLoopSpec(cfg(true))).whenAll(flaky(r, 25)));
    expect(ds.filter((d) => d.decision === 'block')).toHaveLength(0);
    expect(ds[10]).toMatchObject({ decision: 'warn', detector: 'generic_repeat', count: 10 });
    expect(ds[24]).toMatchObject({ decision: 'warn', count: 24 });
  });
  it('by default (and with transientErrors: false) the same errors are blocked at 20', () => {
    for (const setting of [undefined, false]) {
      const r = runEvents();
      const ds = calls(given(toolLoopSpec(cfg(setting))).whenAll(flaky(r, 21)));
      expect(ds[20]).toMatchObject({ decision: 'block', detector: 'generic_repeat', count: 20 });
    }
  });
  it('does not count transient outcomes in the post-compaction window', () => {
    const r = runEvents();
    const on = given(toolLoopSpec(cfg(true))).whenAll([r.compaction(), ...flaky(r, 3)]);
    expect(on.filter((d) => (d as RunAbort).type === 'run_abort')).toHaveLength(0);
    const off = given(toolLoopSpec(cfg(false))).whenAll([r.compaction(), ...flaky(r, 3)]);
    expect(off.filter((d) => (d as RunAbort).type === 'run_abort')).toMatchObject([{ count: 3 }]);
  });
  it('folds an outcome marked transient: false as usual even when its text says timeout', () => {
    const r = runEvents();
    const events: RawToolEvent[] = [];
    for (let i = 0; i < 21; i++) events.push(r.call('fetch', { u: 1 }), { ...r.error('fetch', { u: 1 }, 'timeout'), transient: false });
    expect(calls(given(toolLoopSpec(cfg(true))).whenAll(events))[20]).toMatchObject({ decision: 'block', count: 20 });
  });
});
