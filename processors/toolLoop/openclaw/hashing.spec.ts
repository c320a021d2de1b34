// How the openclaw profile hashes outcomes (docs/behaviour.md §6), beside §2.2's hashes, which it
// leaves as they are.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashOutcome } from '../hashing.js';
import { maskVolatile, openclawOutcome, profileErrorText, profileUnknownToolName } from './hashing.js';
import { profileArgsHash, profileToolName } from './names.js';
import { outcomeDigest, zeroNonces } from './nonces.js';

const text = (t: string, details: Record<string, unknown> = {}) => ({ content: [{ type: 'text', text: t }], details });
const hashOf = (toolName: string, result: unknown, args: unknown = {}) => openclawOutcome({ toolName, args, result })?.resultHash;
const ZEROS = '0000000000000000';
const wrap = (open: string, close: string, body = 'Source: x\n---\nhello') =>
  `<<<EXTERNAL_UNTRUSTED_CONTENT id="${open}">>>\n${body}\n<<<END_EXTERNAL_UNTRUSTED_CONTENT id="${close}">>>`;

describe('wrapper nonces', () => {
  const a = '0123456789abcdef';
  const b = 'fedcba9876543210';

  it('zeroes both ids of a complete pair, so the same content fetched twice is one outcome', () => {
    expect(zeroNonces(wrap(a, a))).toBe(wrap(ZEROS, ZEROS));
    expect(hashOf('web_fetch', text(wrap(a, a)))).toBe(hashOf('web_fetch', text(wrap(b, b))));
    // §2.2's hash keeps them apart.
    expect(hashOutcome({ toolName: 'web_fetch', result: text(wrap(a, a)) })).not.toEqual(hashOutcome({ toolName: 'web_fetch', result: text(wrap(b, b)) }));
  });

  it('leaves a pair alone when its ids differ, are uppercase, or another marker comes between', () => {
    expect(zeroNonces(wrap(a, b))).toBe(wrap(a, b));
    expect(zeroNonces(wrap(a.toUpperCase(), a.toUpperCase()))).toBe(wrap(a.toUpperCase(), a.toUpperCase()));
    const nested = wrap(a, a, `x <<<EXTERNAL_UNTRUSTED_CONTENT id="${b}">>> y`);
    expect(zeroNonces(nested)).toBe(nested);
    expect(zeroNonces(`<<<EXTERNAL_UNTRUSTED_CONTENT id="${a}">>> no end`)).toBe(`<<<EXTERNAL_UNTRUSTED_CONTENT id="${a}">>> no end`);
  });

  it('zeroes every complete pair of a string, and a body that changed still counts', () => {
    expect(zeroNonces(`${wrap(a, a)} and ${wrap(b, b, 'other')}`)).toBe(`${wrap(ZEROS, ZEROS)} and ${wrap(ZEROS, ZEROS, 'other')}`);
    expect(hashOf('web_fetch', text(wrap(a, a, 'v1')))).not.toBe(hashOf('web_fetch', text(wrap(b, b, 'v2'))));
  });

  it('reads JSON-escaped wrappers when the escaping is consistent', () => {
    const escaped = JSON.stringify({ page: wrap(a, a, 'say "hi"') });
    expect(zeroNonces(escaped)).toBe(JSON.stringify({ page: wrap(ZEROS, ZEROS, 'say "hi"') }));
    // One backslash before the marker's quotes but an unescaped quote in the body: not consistent.
    const broken = `<<<EXTERNAL_UNTRUSTED_CONTENT id=\\"${a}\\">>> say "hi" <<<END_EXTERNAL_UNTRUSTED_CONTENT id=\\"${a}\\">>>`;
    expect(zeroNonces(broken)).toBe(broken);
    // Two backslashes is no level of JSON escaping.
    const two = `<<<EXTERNAL_UNTRUSTED_CONTENT id=\\\\"${a}\\\\">>>x<<<END_EXTERNAL_UNTRUSTED_CONTENT id=\\\\"${a}\\\\">>>`;
    expect(zeroNonces(two)).toBe(two);
  });

  it('zeroes keys too, and applies to errors and non-object results', () => {
    expect(outcomeDigest({ [wrap(a, a)]: 1 })).toBe(outcomeDigest({ [wrap(b, b)]: 1 }));
    expect(openclawOutcome({ toolName: 'x', error: wrap(a, a) })).toEqual(openclawOutcome({ toolName: 'x', error: wrap(b, b) }));
    expect(hashOf('x', [wrap(a, a)])).toBe(hashOf('x', [wrap(b, b)]));
  });

  it('leaves a string of many start markers and no end as it is', () => {
    const hostile = `<<<EXTERNAL_UNTRUSTED_CONTENT id="${a}">>>`.repeat(20_000);
    expect(zeroNonces(hostile)).toBe(hostile);
  });
});

describe('outcomes the profile reads otherwise', () => {
  it('hashes a write that changed nothing as one fixed outcome, which makes no progress', () => {
    const one = openclawOutcome({ toolName: 'write', result: text('wrote 3 bytes', { changed: false, bytes: 3 }) });
    const two = openclawOutcome({ toolName: 'write', result: text('wrote 9 bytes', { changed: false, bytes: 9 }) });
    expect(one).toEqual(two);
    expect(one?.noProgress).toBe(true);
    expect(openclawOutcome({ toolName: 'write', result: text('wrote', { changed: true }) })?.noProgress).toBeUndefined();
  });

  it('gives a failure that ended an exec its identity, volatile parts masked', () => {
    const failure = (output: string, extra: Record<string, unknown> = {}) =>
      openclawOutcome({ toolName: 'exec', result: text(output, { status: 'failed', exitCode: 1, aggregated: output, ...extra }) });
    const one = failure('connect refused at 2026-01-02T10:11:12.123Z (attempt 3, pid 4411, took 1.5s)');
    const two = failure('connect refused at 2026-03-04 01:02:03 (attempt 9, pid 17, took 20ms)');
    expect(one?.resultHash).not.toBe(two?.resultHash);
    expect(one?.failureIdentityHash).toBeDefined();
    expect(one?.failureIdentityHash).toBe(two?.failureIdentityHash);
    expect(failure('error X')?.failureIdentityHash).not.toBe(failure('error Y')?.failureIdentityHash);
    // Not a failure with something to say: a zero exit, a timeout, no output, the bare exit line.
    expect(failure('x', { exitCode: 0 })?.failureIdentityHash).toBeUndefined();
    expect(failure('x', { timedOut: true })?.failureIdentityHash).toBeUndefined();
    expect(failure('(Command exited with code 1)')?.failureIdentityHash).toBeUndefined();
    expect(openclawOutcome({ toolName: 'exec', result: text('', { status: 'failed', exitCode: 1 }) })?.failureIdentityHash).toBeUndefined();
  });

  it('masks date-times, clock times, attempt and retry numbers, durations and pids, and nothing else', () => {
    expect(maskVolatile('at 2026-01-02t10:11:12+02:00 then 9:08:07.5')).toBe('at # then #');
    expect(maskVolatile('Attempt #4, retry: 2, attempts 5, retries 6')).toBe('#, #, attempts 5, retries 6');
    expect(maskVolatile('took 15ms, 2 seconds, 3 hours, 4.5 s')).toBe('took #, #, #, #');
    expect(maskVolatile('pid=12 ppid 3 port 8080')).toBe('# # port 8080');
  });

  it('treats messaging sends as send-like: conversations too, ids and times dropped', () => {
    const sent = (i: number) => ({ content: [{ type: 'text', text: `sent ${i}` }], details: { ok: true, messageId: `m${i}`, ts: i } });
    for (const toolName of ['conversations_send', 'conversations_turn', 'sessions_send']) expect(hashOf(toolName, sent(1))).toBe(hashOf(toolName, sent(2)));
    expect(hashOf('message', sent(1), { action: 'send' })).toBe(hashOf('message', sent(2), { action: 'send' }));
    expect(hashOf('message', sent(1), { action: 'read' })).not.toBe(hashOf('message', sent(2), { action: 'read' }));
  });

  it('records the host’s own tool-loop block as a veto, with no hash', () => {
    expect(openclawOutcome({ toolName: 'read', result: { details: { status: 'blocked', deniedReason: 'tool-loop', reason: 'x' } } })).toEqual({ veto: true });
    expect(openclawOutcome({ toolName: 'read', result: { details: { status: 'blocked', deniedReason: 'plugin-before-tool-call' } } })?.resultHash).toBeDefined();
  });

  it('hashes an object without details or content as details and text, as the host does', () => {
    expect(hashOf('x', { a: 1 })).toBe(hashOf('x', { b: 2 }));
  });

  it('formats an error object as the host formats a thrown error: its message, else its name', () => {
    expect(profileErrorText({ name: 'TypeError', message: '' })).toBe('TypeError');
    expect(profileErrorText({ name: 'TypeError', message: 'bad' })).toBe('bad');
    expect(profileErrorText({ code: 'E' } as unknown)).toBe('{"code":"E"}');
    expect(openclawOutcome({ toolName: 'x', error: 'boom' })).toMatchObject({ noProgress: true });
  });
});

describe('names and unknown tools', () => {
  it('detects on the policy name: trimmed, lowercased, aliases mapped', () => {
    expect(['Bash', ' bash ', 'EXEC', 'exec'].map(profileToolName)).toEqual(['exec', 'exec', 'exec', 'exec']);
    expect(profileToolName('Apply-Patch')).toBe('apply_patch');
    expect(profileToolName('cron')).toBe('automations');
    expect(profileArgsHash('Bash', 'exec', 'Bash:abc')).toBe('exec:abc');
    // A runner's own hash, of another form, is compared as it is.
    expect(profileArgsHash('Bash', 'exec', 'custom-hash')).toBe('custom-hash');
  });

  it('hashes an exec outcome of a tool named bash as exec', () => {
    const result = text('x', { status: 'completed', exitCode: 0, aggregated: 'ok', durationMs: 5 });
    expect(hashOf('Bash', result)).toBe(hashOf('exec', { ...result, details: { ...result.details, durationMs: 9 } }));
  });

  it('reads the missing tool in quotes or none, not in backquotes, and after any run of colons and spaces', () => {
    expect(profileUnknownToolName("Tool 'Web_Search' not found")).toBe('web_search');
    expect(profileUnknownToolName('tool "x" is not available')).toBe('x');
    expect(profileUnknownToolName('unknown tool:: foo')).toBe('foo');
    expect(profileUnknownToolName('Unknown tool: `foo`')).toBeUndefined();
    expect(profileUnknownToolName('   ')).toBeUndefined();
  });
});

describe('masking volatile parts', () => {
  // The patterns alone, each over the whole output: what maskVolatile's cheaper pre-checks must never change.
  const plain = (s: string) =>
    [
      /\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?(?:z|[+-]\d{2}:\d{2})?/giu,
      /\d{1,2}:\d{2}:\d{2}(?:\.\d{1,6})?/gu,
      /\b(?:attempt|retry)\b[\s#:=]*\d+/giu,
      /\b\d+(?:\.\d+)?\s?(?:ns|us|ms|seconds?|minutes?|hours?|s)\b/giu,
      /\b(?:pid|ppid)\b[\s#:=]*\d+/giu,
    ].reduce((out, re) => out.replace(re, '#'), s);

  it('masks exactly what the patterns alone mask', () => {
    const piece = fc.constantFrom(
      'attempt',
      'ATTEMPT',
      'retry',
      'Retries',
      'pid',
      'PPID',
      'ms',
      'MS',
      'ſ',
      'K',
      ' ',
      '#',
      ':',
      '=',
      '.',
      '-',
      'T',
      'z',
      '+',
      'x',
      '_',
      '2026-01-02',
      '10:11:12',
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(piece, fc.integer({ min: 0, max: 99 }).map(String)), { maxLength: 30 }), (parts) => {
        const s = parts.join('');
        expect(maskVolatile(s)).toBe(plain(s));
      }),
      { numRuns: 2000 },
    );
  });
});
