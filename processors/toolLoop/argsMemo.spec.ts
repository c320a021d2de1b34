import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArgsHashMemo, MEMO_BUDGET, MEMO_MAX_ENTRY, jsonEqual } from './argsMemo.js';
import { parseToolEvent } from './events.js';
import { canonicalJson, hashArgs } from './hashing.js';

describe('reusing a call’s args hash for its outcome', () => {
  it('treats values as equal only when their canonical JSON is the same', () => {
    const small = fc.oneof(fc.constantFrom('a', 'b', 0, -0, 1, true, null), fc.jsonValue({ maxDepth: 2 }));
    const pair = fc.oneof(
      small.map((v) => [v, structuredClone(v)] as const),
      fc.tuple(small, small),
    );
    let equal = 0;
    fc.assert(
      fc.property(pair, ([a, b]) => {
        const same = jsonEqual(a, b, 0);
        if (same) equal++;
        // jsonEqual ⇒ the same canonical JSON (it may say "not equal" when unsure: that only costs a hash).
        expect(!same || canonicalJson(a) === canonicalJson(b), `${canonicalJson(a)} vs ${canonicalJson(b)}`).toBe(true);
      }),
      { numRuns: 2000 },
    );
    // The cloned pairs (about half) are equal: the implication above was tested, not vacuous.
    expect(equal).toBeGreaterThan(500);
    expect(jsonEqual({ a: 1, b: [1, 'x'] }, { b: [1, 'x'], a: 1 }, 0)).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined }, 0)).toBe(false);
    expect(jsonEqual([1, undefined], [1, undefined], 0)).toBe(false);
  });

  it('takes a null-prototype object as plain, and an instance of a class as not', () => {
    expect(jsonEqual(Object.assign(Object.create(null) as object, { a: 1 }), { a: 1 }, 0)).toBe(true);
    expect(jsonEqual({ a: 1 }, Object.assign(Object.create(null) as object, { a: 1 }), 0)).toBe(true);
    class Args {
      a = 1;
    }
    expect(jsonEqual(new Args(), { a: 1 }, 0)).toBe(false);
  });

  it('compares values nested 512 levels deep, as deep as canonical JSON goes, and no deeper', () => {
    const levels = (n: number): unknown => {
      let v: unknown = [];
      for (let i = 1; i < n; i++) v = [v];
      return v;
    };
    expect(jsonEqual(levels(512), levels(512), 0)).toBe(true);
    expect(jsonEqual(levels(513), levels(513), 0)).toBe(false);
  });

  it('hashes an outcome’s args as hashArgs does, whether they match the call’s or not', () => {
    const base = { ts: 1, runId: 'r', toolCallId: 'c1', toolName: 'read' };
    const args = { path: '/a', note: 'x'.repeat(100) };
    const hashOf = (e: unknown) => {
      const p = parseToolEvent(e);
      if (!p.ok) throw new Error(p.reason);
      return (p.value as { argsHash: string }).argsHash;
    };
    expect(hashOf({ ...base, type: 'tool_call', args })).toBe(hashArgs('read', args));
    expect(hashOf({ ...base, type: 'tool_outcome', args: structuredClone(args), result: 'ok' })).toBe(hashArgs('read', args));
    const other = { path: '/b' };
    expect(hashOf({ ...base, type: 'tool_call', args })).toBe(hashArgs('read', args));
    expect(hashOf({ ...base, type: 'tool_outcome', args: other, result: 'ok' })).toBe(hashArgs('read', other));
    expect(hashOf({ ...base, type: 'tool_call', args })).toBe(hashArgs('read', args));
    expect(hashOf({ ...base, toolName: 'write', type: 'tool_outcome', args, result: 'ok' })).toBe(hashArgs('write', args));
  });
});

describe('ArgsHashMemo', () => {
  it('holds at most MEMO_BUDGET characters of arguments, pushing out the oldest calls first', () => {
    const memo = new ArgsHashMemo();
    const size = 1000;
    const n = Math.floor(MEMO_BUDGET / size);
    for (let i = 0; i <= n; i++) memo.remember(`c${i}`, 'read', { i }, `h${i}`, size);
    expect(memo.take('c0', 'read', { i: 0 })).toBeUndefined();
    expect(memo.take('c1', 'read', { i: 1 })).toBe('h1');
    expect(memo.take(`c${n}`, 'read', { i: n })).toBe(`h${n}`);
    // Taken entries are spent.
    expect(memo.take('c1', 'read', { i: 1 })).toBeUndefined();
  });

  it('keeps nothing over MEMO_MAX_ENTRY, and nothing for other arguments or another tool', () => {
    const memo = new ArgsHashMemo();
    memo.remember('big', 'read', { a: 1 }, 'h', MEMO_MAX_ENTRY + 1);
    expect(memo.take('big', 'read', { a: 1 })).toBeUndefined();
    memo.remember('c', 'read', { a: 1 }, 'h', 10);
    expect(memo.take('c', 'write', { a: 1 })).toBeUndefined();
    memo.remember('c', 'read', { a: 1 }, 'h', 10);
    expect(memo.take('c', 'read', { a: 2 })).toBeUndefined();
    memo.remember('c', 'read', { a: 1 }, 'h', 10);
    expect(memo.take('c', 'read', { a: 1 })).toBe('h');
  });

  it('keeps an entry of exactly MEMO_MAX_ENTRY characters, and one of exactly its budget', () => {
    const memo = new ArgsHashMemo();
    memo.remember('max', 'read', { a: 1 }, 'h', MEMO_MAX_ENTRY);
    expect(memo.take('max', 'read', { a: 1 })).toBe('h');
    const small = new ArgsHashMemo(250);
    small.remember('c', 'read', { a: 1 }, 'h', 250);
    expect(small.take('c', 'read', { a: 1 })).toBe('h');
  });

  it('keeps every entry while they hold exactly the budget, and pushes out the oldest past it', () => {
    const memo = new ArgsHashMemo(300);
    memo.remember('c0', 'read', { i: 0 }, 'h0', 100);
    memo.remember('c1', 'read', { i: 1 }, 'h1', 200);
    expect([memo.take('c0', 'read', { i: 0 }), memo.take('c1', 'read', { i: 1 })]).toEqual(['h0', 'h1']);
    memo.remember('c0', 'read', { i: 0 }, 'h0', 100);
    memo.remember('c1', 'read', { i: 1 }, 'h1', 201);
    expect([memo.take('c0', 'read', { i: 0 }), memo.take('c1', 'read', { i: 1 })]).toEqual([undefined, 'h1']);
  });

  it('holds less once given a smaller budget, pushing out the oldest calls at the next one', () => {
    const memo = new ArgsHashMemo();
    for (let i = 0; i < 4; i++) memo.remember(`c${i}`, 'read', { i }, `h${i}`, 100);
    memo.setBudget(250);
    memo.remember('c4', 'read', { i: 4 }, 'h4', 100);
    memo.remember('big', 'read', { i: 5 }, 'h5', 251);
    expect([0, 1, 2, 3, 4].map((i) => memo.take(`c${i}`, 'read', { i }))).toEqual([undefined, undefined, undefined, 'h3', 'h4']);
    expect(memo.take('big', 'read', { i: 5 })).toBeUndefined();
  });
});
