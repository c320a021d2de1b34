// The early preset's hashing (docs/behaviour.md §7.1–§7.3): call identity and its normalisation,
// arguments restricted to a loopKey, and the progress hash with its volatile parts masked.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashArgs, hashValue } from '../hashing.js';
import { toolEventParser } from '../events.js';
import { callIdentity, keyedArgs, keyedArgsHash, normalisedString } from './identity.js';
import { isVolatileKey, maskText, progressHash } from './progress.js';

describe('call identity', () => {
  it('normalises strings: trimmed, whitespace runs one space, lowercased, trailing ?, ! and . gone', () => {
    expect(normalisedString('  Why\t\tis  it\nSLOW?!. ')).toBe('why is it slow');
    expect(normalisedString('...')).toBe('');
    expect(normalisedString('v1.2')).toBe('v1.2');
  });

  it('normalises paths and URLs: a leading ./ gone, runs of / one /, a trailing / gone', () => {
    expect(normalisedString('./src//lib///a.ts/')).toBe('src/lib/a.ts');
    expect(normalisedString('https://Example.com/a/')).toBe('https:/example.com/a');
    expect(normalisedString('../a/./b')).toBe('../a/./b');
  });

  it('is one identity for arguments that differ only so, through arrays and objects, keys as they are', () => {
    const a = callIdentity('read', { path: './src/a.ts', opts: { tags: ['X ', 'y?'] } }, undefined);
    expect(callIdentity('read', { path: 'src//a.ts', opts: { tags: ['x', ' Y'] } }, undefined)).toBe(a);
    expect(callIdentity('read', { Path: 'src/a.ts', opts: { tags: ['x', 'y'] } }, undefined)).not.toBe(a);
    expect(callIdentity('write', { path: 'src/a.ts', opts: { tags: ['x', 'y'] } }, undefined)).not.toBe(a);
    expect(a.startsWith('read:')).toBe(true);
  });

  it('restricts arguments to the loopKey’s fields, absent ones omitted, any name a plain field', () => {
    const args = JSON.parse('{"q": "a", "requestId": 7, "__proto__": {"x": 1}}') as Record<string, unknown>;
    expect(JSON.stringify(keyedArgs(args, ['q', 'missing']))).toBe('{"q":"a"}');
    expect(Object.keys(keyedArgs(args, ['__proto__', 'q']) as object)).toEqual(['__proto__', 'q']);
    expect(keyedArgsHash('s', args, ['q'])).toBe(hashArgs('s', { q: 'a' }));
    expect(keyedArgsHash('s', args, false)).toBe(hashArgs('s', args));
    expect(keyedArgsHash('s', args, undefined)).toBe(hashArgs('s', args));
    // Arguments that are not an object have no fields to pick: they identify the call whole.
    expect(keyedArgsHash('s', ['q'], ['q'])).toBe(hashArgs('s', ['q']));
  });

  it('hashes the arguments a loopKey restricts in every profile, an outcome as its call', () => {
    const parse = toolEventParser({ openclaw: false, loopKeys: () => ['q'] });
    const call = parse({ type: 'tool_call', ts: 1, runId: 'r', toolName: 's', args: { q: 'a', at: 1 } });
    const outcome = parse({ type: 'tool_outcome', ts: 2, runId: 'r', toolName: 's', args: { q: 'a', at: 2 }, result: 'x' });
    expect(call.ok && outcome.ok && call.value.type !== 'compaction' && outcome.value.type !== 'compaction').toBe(true);
    expect((call as { value: { argsHash: string } }).value.argsHash).toBe(hashArgs('s', { q: 'a' }));
    expect((outcome as { value: { argsHash: string } }).value.argsHash).toBe(hashArgs('s', { q: 'a' }));
  });

  it('refuses arguments too deep to normalise, naming the field', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 600; i++) deep = [deep];
    const parse = toolEventParser({ openclaw: false, early: true });
    expect(parse({ type: 'tool_call', ts: 1, runId: 'r', toolName: 's', args: { deep } })).toEqual({ ok: false, reason: expect.stringMatching(/^args: nests deeper than 512/) });
  });
});

describe('progress hash', () => {
  it('drops volatile keys at any depth', () => {
    const volatile = ['ts', 'time', 'timestamp', 'Timestamp', 'createdAt', 'checked2At', 'created_at', 'start_time', 'event_ts', 'requestId', 'request_id', 'traceId', 'span_id'];
    const more = ['correlationId', 'durationMs', 'duration_ms', 'tookMs', 'took', 'elapsedSeconds', 'latency', 'totalLatencyMs', 'pid', 'PID'];
    for (const k of [...volatile, ...more]) expect(isVolatileKey(k), k).toBe(true);
    for (const k of ['format', 'repeat', 'chat', 'status', 'timeout', 'progress', 'at', '_at', 'At', 'data', 'x'.repeat(100) + 'At']) expect(isVolatileKey(k), k).toBe(false);
    const a = progressHash({ toolName: 'f', result: { state: 'ok', meta: [{ checkedAt: 1, requestId: 'a' }], durationMs: 3 } });
    expect(progressHash({ toolName: 'f', result: { state: 'ok', meta: [{ checkedAt: 2, requestId: 'b' }], durationMs: 9 } })).toBe(a);
    expect(progressHash({ toolName: 'f', result: { state: 'down', meta: [{ checkedAt: 2 }] } })).not.toBe(a);
  });

  it('masks date-times, clock times, UUIDs, pids, durations and epoch milliseconds in strings, and nothing else', () => {
    expect(maskText('at 2026-06-01T09:00:00.123Z and 2026-06-01 09:00:00+02:00')).toBe('at #T and #T');
    expect(maskText('[9:05:07] ok, 10:11:12.5')).toBe('[#t] ok, #t');
    expect(maskText('request 123e4567-e89b-12d3-a456-426614174000 done')).toBe('request #id done');
    expect(maskText('npm test (pid 4242), PPID=17')).toBe('npm test (pid #), pid #');
    expect(maskText('took 2.31s, 120 ms, 3 minutes, 1 h')).toBe('took #d, #d, #d, #d');
    expect(maskText('since 1780000000000')).toBe('since #ms');
    expect(maskText('error 42: 3 items in 2026 rows, 17')).toBe('error 42: 3 items in 2026 rows, 17');
  });

  it('masks exactly what the patterns alone mask, wherever its cheaper pre-checks skip one', () => {
    const plain = (s: string) =>
      [
        [/\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:?\d{2})?/g, '#T'],
        [/\b\d{1,2}:\d{2}:\d{2}(?:\.\d{1,9})?\b/g, '#t'],
        [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '#id'],
        [/\b(?:pid|ppid)\b[\s#:=]*\d+/gi, 'pid #'],
        [/\b\d+(?:\.\d+)?\s?(?:ns|us|µs|ms|s|secs?|seconds?|mins?|minutes?|h|hours?)\b/gi, '#d'],
        [/\b1\d{12}\b/g, '#ms'],
      ].reduce((out, [re, by]) => out.replace(re as RegExp, by as string), s);
    const piece = fc.constantFrom(
      'pid',
      'PPID',
      'ms',
      'MS',
      'µs',
      'h',
      'secs',
      ' ',
      '#',
      ':',
      '=',
      '.',
      '-',
      'T',
      'Z',
      '+',
      'x',
      'abcdef12',
      '2026-01-02',
      '10:11:12',
      '1780000000000',
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(piece, fc.integer({ min: 0, max: 99 }).map(String)), { maxLength: 30 }), (parts) => {
        const s = parts.join('');
        expect(maskText(s)).toBe(plain(s));
      }),
      { numRuns: 2000 },
    );
  });

  it('hashes what §2.2 hashes: an error’s text, exec’s tuple, a gateway result’s details and text, any other value whole', () => {
    expect(progressHash({ toolName: 'f', error: { message: 'boom at 10:00:01' } })).toBe(`error:${hashValue('boom at #t')}`);
    const exec = (pid: number, ms: number) => ({ details: { status: 'failed', exitCode: 1, aggregated: `(pid ${pid}) failed after ${ms}ms`, durationMs: ms, pid }, content: [] });
    expect(progressHash({ toolName: 'exec', result: exec(1, 20) })).toBe(progressHash({ toolName: 'exec', result: exec(2, 90) }));
    expect(progressHash({ toolName: 'exec', result: exec(1, 20) })).toBe(hashValue({ status: 'failed', exitCode: 1, timedOut: false, output: '(pid #) failed after #d' }));
    expect(progressHash({ toolName: 'f', result: 'plain 10:00:00' })).toBe(hashValue('plain #t'));
    expect(progressHash({ toolName: 'f' })).toBeUndefined();
    expect(progressHash({ toolName: 'f', result: { details: { status: 'blocked', deniedReason: 'tool-loop' } } })).toBeUndefined();
  });

  it('zeroes wrapper nonces (§6.3) before hashing', () => {
    const wrap = (id: string) => ({
      content: [{ type: 'text', text: `<<<EXTERNAL_UNTRUSTED_CONTENT id="${id}">>>\nbody\n<<<END_EXTERNAL_UNTRUSTED_CONTENT id="${id}">>>` }],
      details: {},
    });
    expect(progressHash({ toolName: 'web_fetch', result: wrap('0123456789abcdef') })).toBe(progressHash({ toolName: 'web_fetch', result: wrap('fedcba9876543210') }));
  });

  it('keeps a runner’s own values (a Uint8Array) as they are', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    expect(progressHash({ toolName: 'f', result: { data: bytes } })).toBe(hashValue({ data: bytes }));
  });
});
