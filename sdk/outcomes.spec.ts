import { describe, expect, it } from 'vitest';
import { hashOutcome, hashValue } from '../processors/toolLoop/hashing.js';
import { hashedTransientFlag, isHostVeto, wholeResult } from './outcomes.js';

describe('a tool’s own result, published whole', () => {
  const hashOf = (result: unknown) => hashOutcome({ toolName: 't', result: wholeResult(result) })?.resultHash;
  it('is the result itself when §2.2 hashes it whole already', () => {
    const poll = { state: 'rolling', progress: 40 };
    expect(wholeResult(poll)).toBe(poll);
    for (const v of ['text', 42, [1, { content: [] }], null, undefined]) expect(wholeResult(v)).toBe(v);
    expect(hashOf(poll)).toBe(hashValue(poll));
  });
  it('wraps a result with a `content` or `details` key, so that its images, data and JSON count', () => {
    const image = (data: string) => ({
      content: [
        { type: 'text', text: 'chart' },
        { type: 'image', data, mimeType: 'image/png' },
      ],
    });
    expect(wholeResult(image('AA=='))).toEqual({ value: image('AA==') });
    expect(hashOf(image('AA=='))).not.toBe(hashOf(image('AQ==')));
    expect(hashOf(image('AA=='))).toBe(hashOf(image('AA==')));
    expect(hashOf({ content: 'v1', artifact: 1 })).not.toBe(hashOf({ content: 'v1', artifact: 2 }));
    expect(hashOf({ details: { n: 1 } })).not.toBe(hashOf({ details: { n: 1 }, extra: true }));
  });
});

describe('the transient flag of a hashed outcome', () => {
  it('is the caller’s when given, either way', () => {
    expect(hashedTransientFlag({ result: 'ok', transient: true }, false)).toBe(true);
    expect(hashedTransientFlag({ error: '503 Service Unavailable', transient: false }, false)).toBe(false);
  });
  it('is true for an error loopguard would find transient (status, code, text)', () => {
    expect(hashedTransientFlag({ error: { message: 'nope', status: 429 } }, false)).toBe(true);
    expect(hashedTransientFlag({ error: { message: 'nope', statusCode: 502 } }, false)).toBe(true);
    expect(hashedTransientFlag({ error: Object.assign(new Error('connect failed'), { code: 'ECONNREFUSED' }) }, false)).toBe(true);
    expect(hashedTransientFlag({ error: new Error('request timed out') }, false)).toBe(true);
    expect(hashedTransientFlag({ error: 'HTTP 503' }, false)).toBe(true);
  });
  it('is absent for an error that is not transient, and near misses', () => {
    expect(hashedTransientFlag({ error: { message: 'nope', status: 404 } }, false)).toBeUndefined();
    expect(hashedTransientFlag({ error: { message: 'nope', status: '429' } }, false)).toBeUndefined();
    expect(hashedTransientFlag({ error: 'error E5030' }, false)).toBeUndefined();
    expect(hashedTransientFlag({ error: new Error('file not found') }, false)).toBeUndefined();
  });
  it('is absent without an error, with a result beside the error, or for an unknown tool', () => {
    expect(hashedTransientFlag({ result: 'rate limit reached' }, false)).toBeUndefined();
    expect(hashedTransientFlag({ result: { partial: true }, error: 'timeout' }, false)).toBeUndefined();
    expect(hashedTransientFlag({ error: 'Unknown tool: fetch (timeout)' }, true)).toBeUndefined();
  });
  it('judges an error beside a null result (null counts as absent)', () => {
    expect(hashedTransientFlag({ result: null, error: 'timeout' }, false)).toBe(true);
  });
});

describe('a host’s own tool-loop block', () => {
  it('is a veto only with status blocked and reason tool-loop in its details', () => {
    expect(isHostVeto({ content: [{ type: 'text', text: 'CRITICAL' }], details: { status: 'blocked', deniedReason: 'tool-loop' } })).toBe(true);
    expect(isHostVeto({ details: { status: 'blocked', deniedReason: 'plugin-before-tool-call' } })).toBe(false);
    expect(isHostVeto({ details: { status: 'completed', deniedReason: 'tool-loop' } })).toBe(false);
    expect(isHostVeto({ status: 'blocked', deniedReason: 'tool-loop' })).toBe(false);
    for (const v of [undefined, null, 'blocked', { details: null }, { details: ['blocked'] }]) expect(isHostVeto(v)).toBe(false);
  });
});
