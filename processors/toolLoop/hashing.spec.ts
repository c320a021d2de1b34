import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalUtf8, writeCanonical } from './canonical.js';
import { canonicalJson, hashArgs, hashOutcome, hashValue, unknownToolNameOf } from './hashing.js';

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** Any value: JSON's, and what JSON.parse never makes (undefined, NaN, lone surrogates, index-like keys, __proto__). */
const anyValue = (() => {
  const keys = fc.oneof(fc.string(), fc.constantFrom('__proto__', '0', '1', '10', '9', '01', 'a\uD800', 'b'));
  const leaf = fc.oneof(fc.string({ unit: 'binary' }), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined));
  return fc.letrec((tie) => ({
    any: fc.oneof({ depthSize: 'small' }, leaf, tie('arr'), tie('obj')),
    arr: fc.array(tie('any'), { maxLength: 4 }),
    obj: fc.dictionary(keys, tie('any'), { maxKeys: 5, noNullPrototype: false }),
  })).any;
})();

describe('canonical JSON', () => {
  it('writes the same text on its fast path as the general writer, for any value', () => {
    fc.assert(
      fc.property(fc.oneof(anyValue, fc.jsonValue()), (v) => {
        expect(canonicalJson(v)).toBe(writeCanonical(v));
      }),
      { numRuns: 2000 },
    );
  });
  it('writes long strings as JSON.stringify does, whatever they hold', () => {
    // Long strings take a quicker escape check on the fast path: any character that needs
    // escaping, anywhere, and characters above U+00FF whose low byte looks like one.
    const special = fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u0122', '\u015c', '\u0100', 'é', '😀', '\u2028', ' ', 'a');
    const long = fc.tuple(fc.string({ minLength: 60, maxLength: 200 }), fc.array(fc.tuple(fc.nat(), special), { maxLength: 3 })).map(([base, inserts]) => {
      let s = base;
      for (const [at, c] of inserts) s = s.slice(0, at % (s.length + 1)) + c + s.slice(at % (s.length + 1));
      return s;
    });
    fc.assert(
      fc.property(long, (s) => {
        expect(canonicalJson(s)).toBe(writeCanonical(s));
        if (s.isWellFormed()) expect(canonicalJson(s)).toBe(JSON.stringify(s));
        expect(canonicalJson({ [s]: [s] })).toBe(writeCanonical({ [s]: [s] }));
      }),
      { numRuns: 3000 },
    );
  });
  it('writes the UTF-8 of canonical JSON on its byte path, for every value it takes, and takes every JSON value', () => {
    let taken = 0;
    fc.assert(
      fc.property(anyValue, (v) => {
        const bytes = canonicalUtf8(v);
        if (bytes === undefined) return;
        taken++;
        expect(Buffer.from(bytes).toString('utf8')).toBe(writeCanonical(v));
        expect(hashValue(v)).toBe(sha(writeCanonical(v)));
      }),
      { numRuns: 2000 },
    );
    expect(taken).toBeGreaterThan(500);
    // Everything JSON.parse makes takes it, but for lone surrogates and index-like keys out of order.
    const key = fc.string().filter((k) => !/^(?:0|[1-9]\d{0,9})$/.test(k));
    const json = fc.letrec((tie) => ({
      any: fc.oneof({ depthSize: 'small' }, fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), tie('arr'), tie('obj')),
      arr: fc.array(tie('any'), { maxLength: 4 }),
      obj: fc.dictionary(key, tie('any'), { maxKeys: 5 }),
    })).any;
    fc.assert(
      fc.property(json, (v) => {
        const bytes = canonicalUtf8(v);
        expect(bytes && Buffer.from(bytes).toString('utf8')).toBe(writeCanonical(v));
      }),
      { numRuns: 2000 },
    );
  });
  it('escapes on its byte path exactly as JSON.stringify does, at any byte alignment', () => {
    // Bytes are checked four at a time from 4-aligned offsets, one at a time at either end: a
    // key of 0-7 characters moves the string across every alignment.
    const special = fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', 'é', '\u0122', '\u2028', '😀', '#', ' ', 'a');
    const text = fc.tuple(fc.string({ maxLength: 90 }), fc.array(fc.tuple(fc.nat(), special), { maxLength: 3 })).map(([base, inserts]) => {
      let s = base;
      for (const [at, c] of inserts) s = s.slice(0, at % (s.length + 1)) + c + s.slice(at % (s.length + 1));
      return s;
    });
    fc.assert(
      fc.property(fc.string({ maxLength: 7 }), text, (k, s) => {
        const v = { [k]: s, z: [s] };
        const bytes = canonicalUtf8(v);
        if (!s.isWellFormed() || !k.isWellFormed()) expect(bytes).toBeUndefined();
        else expect(bytes && Buffer.from(bytes).toString('utf8')).toBe(writeCanonical(v));
      }),
      { numRuns: 4000 },
    );
  });
  it('hashes right when a getter met while writing hashes something itself', () => {
    const inner = { b: 'x'.repeat(100), c: [1, 2] };
    const outer = {
      a: 'before',
      get m() {
        return hashValue(inner);
      },
      z: 'after',
    };
    const plain = { a: 'before', m: sha(writeCanonical(inner)), z: 'after' };
    expect(hashValue(outer)).toBe(sha(writeCanonical(plain)));
    expect(hashValue(outer)).toBe(hashValue(plain));
  });
  it('writes values larger than its buffer, and small ones after them', () => {
    const big = { a: 'x'.repeat(100_000) + '"', b: ['é'.repeat(50_000)] };
    expect(Buffer.from(canonicalUtf8(big)!).toString('utf8')).toBe(writeCanonical(big));
    expect(hashValue(big)).toBe(sha(writeCanonical(big)));
    expect(Buffer.from(canonicalUtf8({ b: 1 })!).toString('utf8')).toBe('{"b":1}');
  });
  it('sorts keys by JS string order and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'], B: { d: 2, c: 1 } })).toBe('{"B":{"c":1,"d":2},"a":[true,null,"x"],"b":1}');
  });
  it('writes a key named "undefined" like any other', () => {
    expect(canonicalJson({ undefined: 1 })).toBe('{"undefined":1}');
    expect(canonicalJson({ a: 2, undefined: 1 })).toBe('{"a":2,"undefined":1}');
  });
  it('writes undefined as a bare token, so {a: undefined} differs from {}', () => {
    expect(canonicalJson({ a: undefined })).toBe('{"a":undefined}');
    expect(canonicalJson([undefined])).toBe('[undefined]');
    expect(canonicalJson(undefined)).toBe('undefined');
    expect(hashValue({ a: undefined })).not.toBe(hashValue({}));
  });
  it('writes NaN, Infinity and bigint as strings, functions and symbols as null', () => {
    expect(canonicalJson([NaN, Infinity, -Infinity, 12n, () => 1, Symbol('s'), -0])).toBe('["NaN","Infinity","-Infinity","12",null,null,0]');
  });
  it('deletes unpaired surrogates, in values and in keys, keeping pairs', () => {
    expect(canonicalJson('a\uD800b')).toBe('"ab"');
    expect(canonicalJson('x\uDC00')).toBe('"x"');
    expect(canonicalJson('😀')).toBe('"😀"');
    expect(canonicalJson({ ['k\uD800']: 1 })).toBe('{"k":1}');
  });
  it('writes Date, Map and Set as {}, Error as {message,name,stack}, Uint8Array as base64', () => {
    expect(canonicalJson({ d: new Date(0), m: new Map([[1, 2]]), s: new Set([1]) })).toBe('{"d":{},"m":{},"s":{}}');
    const e = new TypeError('boom');
    expect(canonicalJson(e)).toBe(`{"message":"boom","name":"TypeError","stack":${JSON.stringify(e.stack)}}`);
    expect(canonicalJson(new Uint8Array([1, 2, 3]))).toBe('{"data":"AQID","type":"Uint8Array"}');
  });
  it('marks values on the current recursion path as [Circular] but writes shared references in full', () => {
    const a: Record<string, unknown> = { x: 1 };
    a.self = a;
    expect(canonicalJson(a)).toBe('{"self":"[Circular]","x":1}');
    const shared = { v: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"v":1},"b":{"v":1}}');
  });
  it('hashes a string with its quotes', () => {
    expect(hashValue('abc')).toBe(sha('"abc"'));
    expect(hashArgs('read', { path: '/a' })).toBe(`read:${sha('{"path":"/a"}')}`);
  });
});

describe('resultHash', () => {
  const h = (v: unknown) => hashValue(v);
  it('hashes an error by its text: message, else name, string as is, numbers in decimal', () => {
    expect(hashOutcome({ toolName: 't', error: { name: 'E', message: 'bad' } })?.resultHash).toBe(`error:${h('bad')}`);
    expect(hashOutcome({ toolName: 't', error: { name: 'TimeoutError' } })?.resultHash).toBe(`error:${h('TimeoutError')}`);
    expect(hashOutcome({ toolName: 't', error: 'plain' })?.resultHash).toBe(`error:${h('plain')}`);
    expect(hashOutcome({ toolName: 't', error: 42 })?.resultHash).toBe(`error:${h('42')}`);
    expect(hashOutcome({ toolName: 't', error: [1] })?.resultHash).toBe(`error:${h('[1]')}`);
  });
  it('lets an error win over a result', () => {
    expect(hashOutcome({ toolName: 't', error: 'x', result: { a: 1 } })?.resultHash).toBe(`error:${h('x')}`);
  });
  it.each([
    ['Unknown tool: Foo_Bar', 'foo_bar'],
    ['unknown tool   web.search', 'web.search'],
    ['Error: unknown tool: "fetch-url" (did you mean fetch?)', 'fetch-url'],
    ['Tool `browse` not found', 'browse'],
    ["tool 'x1' is not available", 'x1'],
    ['  TOOL Grep NOT FOUND  ', 'grep'],
  ])('extracts the unknown tool from %j', (text, name) => {
    expect(unknownToolNameOf(text)).toBe(name);
    expect(hashOutcome({ toolName: 'x', error: text })?.unknownToolName).toBe(name);
  });
  it('does not take ordinary errors for unknown tools', () => {
    expect(unknownToolNameOf('file not found')).toBeUndefined();
    expect(unknownToolNameOf('tool failed')).toBeUndefined();
  });
  it('records nothing for an absent result and hashes non-objects as they are', () => {
    expect(hashOutcome({ toolName: 't' })).toBeUndefined();
    expect(hashOutcome({ toolName: 't', result: 'txt' })?.resultHash).toBe(h('txt'));
    expect(hashOutcome({ toolName: 't', result: [1, 2] })?.resultHash).toBe(h([1, 2]));
    expect(hashOutcome({ toolName: 't', result: null })?.resultHash).toBe(h(null));
  });
  it('hashes a plain object with neither `details` nor `content` whole (Revision 4)', () => {
    const poll = (progress: number) => ({ state: 'rolling', progress });
    expect(hashOutcome({ toolName: 'deploy_status', result: poll(40) })?.resultHash).toBe(h(poll(40)));
    expect(hashOutcome({ toolName: 'deploy_status', result: poll(40) })).not.toEqual(hashOutcome({ toolName: 'deploy_status', result: poll(50) }));
    expect(hashOutcome({ toolName: 't', result: {} })?.resultHash).toBe(h({}));
    // Nested `details` / `content` keys are the framework's own data: only the result's own keys count.
    expect(hashOutcome({ toolName: 't', result: { data: { details: 1, content: [] } } })?.resultHash).toBe(h({ data: { details: 1, content: [] } }));
    expect(hashOutcome({ toolName: 't', result: Object.create({ content: [] }) as object })?.resultHash).toBe(h({}));
    // Whatever the tool: rules 5–7 read gateway-shaped results only.
    expect(hashOutcome({ toolName: 'exec', result: { status: 'completed', pid: 7 } })?.resultHash).toBe(h({ status: 'completed', pid: 7 }));
    expect(hashOutcome({ toolName: 'message', args: { action: 'send' }, result: { messageId: '1' } })?.resultHash).toBe(h({ messageId: '1' }));
  });
  it('reads an object with a `details` or `content` key as a gateway result, whatever the key holds', () => {
    expect(hashOutcome({ toolName: 't', result: { content: 'text', n: 1 } })?.resultHash).toBe(h({ details: {}, text: '' }));
    expect(hashOutcome({ toolName: 't', result: { details: null, n: 1 } })?.resultHash).toBe(h({ details: {}, text: '' }));
    const image = { content: [{ type: 'image', data: 'AA==' }] };
    expect(hashOutcome({ toolName: 't', result: image })?.resultHash).toBe(h({ details: {}, text: '' }));
  });
  it('ignores our own tool-loop block echoed back, but hashes other denials', () => {
    expect(hashOutcome({ toolName: 't', result: { details: { status: 'blocked', deniedReason: 'tool-loop' } } })).toBeUndefined();
    // Another denial is hashed by rule 8: {details, text}.
    const details = { status: 'blocked', deniedReason: 'policy' };
    expect(hashOutcome({ toolName: 't', result: { details } })?.resultHash).toBe(h({ details, text: '' }));
  });
  it('hashes exec results by their stable fields only', () => {
    const base = { status: 'completed', exitCode: 1, aggregated: '  out \n', durationMs: 10, pid: 1, sessionId: 'a', cwd: '/x' };
    const a = hashOutcome({ toolName: 'exec', result: { details: base, content: [{ type: 'text', text: 'ignored' }] } });
    const b = hashOutcome({ toolName: 'exec', result: { details: { ...base, durationMs: 99, pid: 7, sessionId: 'b', cwd: '/y' } } });
    expect(a).toEqual(b);
    expect(a?.resultHash).toBe(h({ status: 'completed', exitCode: 1, timedOut: false, output: 'out' }));
    expect(
      hashOutcome({ toolName: 'exec', result: { details: { status: 'failed', exitCode: 'x', timedOut: 'yes', aggregated: ' ' }, content: [{ type: 'text', text: ' t ' }] } })
        ?.resultHash,
    ).toBe(h({ status: 'failed', exitCode: null, timedOut: false, output: 't' }));
    expect(hashOutcome({ toolName: 'exec', result: { details: { status: 'running', tail: 5, pid: 3 } } })?.resultHash).toBe(h({ status: 'running', tail: '' }));
    expect(hashOutcome({ toolName: 'exec', result: { details: { status: 'approval-pending', host: 'h', pid: 3 } } })?.resultHash).toBe(
      h({ status: 'approval-pending', reason: null, host: 'h', command: '', warningText: '' }),
    );
  });
  it('lets an unknown exec status fall through to {details, text}', () => {
    const result = { details: { status: 'weird', pid: 1 }, content: [{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: 'b' }] };
    expect(hashOutcome({ toolName: 'exec', result })?.resultHash).toBe(h({ details: result.details, text: 'a\nb' }));
  });
  it('hashes process poll and log results by their listed fields, missing ones as null', () => {
    expect(hashOutcome({ toolName: 'process', args: { action: 'poll' }, result: { details: { status: 'running', aggregated: 'x', pid: 9 } } })?.resultHash).toBe(
      h({ action: 'poll', status: 'running', exitCode: null, exitSignal: null, aggregated: 'x', text: '' }),
    );
    expect(hashOutcome({ toolName: 'process', action: 'log', args: undefined, result: { details: { totalLines: 3 }, content: [{ type: 'text', text: 'l' }] } })?.resultHash).toBe(
      h({ action: 'log', status: null, totalLines: 3, totalChars: null, truncated: null, exitCode: null, exitSignal: null, text: 'l' }),
    );
  });
  it('strips per-delivery ids from outbound sends at any depth', () => {
    const sent = (id: string) => ({ details: { ok: true, messageId: id, ts: id, nested: [{ message_id: id, keep: 1 }], text: 'kept' }, content: [{ type: 'text', text: id }] });
    const a = hashOutcome({ toolName: 'message', args: { action: 'send', to: 'x' }, result: sent('1') });
    expect(a).toEqual(hashOutcome({ toolName: 'message', args: { action: 'send', to: 'x' }, result: sent('2') }));
    expect(a?.resultHash).toBe(h({ ok: true, nested: [{ keep: 1 }], text: 'kept' }));
    expect(hashOutcome({ toolName: 'sessions_send', result: sent('1') })).toEqual(hashOutcome({ toolName: 'sessions_send', result: sent('3') }));
    expect(hashOutcome({ toolName: 'slack', args: { to: 'C1' }, result: sent('1') })).toEqual(hashOutcome({ toolName: 'slack', args: { to: 'C1' }, result: sent('4') }));
  });
  it('drops `id` only on message-like objects', () => {
    const msg = { id: 'm1', text: 'hi', senderId: 'b' };
    const other = { id: 'keep', text: 'hi' };
    const r = hashOutcome({ toolName: 'message', args: { action: 'reply' }, result: { details: { msg, other } } });
    expect(r?.resultHash).toBe(h({ msg: { text: 'hi', senderId: 'b' }, other }));
  });
  it('hashes other message actions and channel tools without `to` fully', () => {
    const result = { details: { messageId: '1' } };
    expect(hashOutcome({ toolName: 'message', args: { action: 'read' }, result })?.resultHash).toBe(h({ details: result.details, text: '' }));
    expect(hashOutcome({ toolName: 'slack', args: { channel: 'c' }, result })?.resultHash).toBe(h({ details: result.details, text: '' }));
  });
  it('reads action from the event when only argsHash is sent', () => {
    const result = { details: { messageId: '1', ok: true } };
    expect(hashOutcome({ toolName: 'message', action: 'send', result })?.resultHash).toBe(h({ ok: true }));
  });
  it('falls back to {details, text} with details {} when details is not an object', () => {
    expect(hashOutcome({ toolName: 'read', result: { details: 'x', content: [{ type: 'text', text: ' hi ' }] } })?.resultHash).toBe(h({ details: {}, text: 'hi' }));
  });
});
