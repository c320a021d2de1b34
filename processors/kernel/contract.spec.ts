import { describe, expect, it } from 'vitest';
import { declare, f, rowValidator, validator } from './contract.js';

// The validator every input passes, at each limit a declaration gives (docs/behaviour.md §1
// "Limits"): a value at the limit is accepted, one past it rejected with the field named. A
// top-level string or integer is checked inline (the hot path); the same kinds inside a record or
// a list go through the generic checker, so each limit is tested on both paths.
const TEXT = f.text(undefined, 3);
const TOKEN = f.token(undefined, 3);
const SMALL = { kind: 'int', min: -2, max: 5 } as const;
const FIELDS = {
  text: f.optional(TEXT),
  token: f.optional(TOKEN),
  small: f.optional(SMALL),
  free: f.optional(f.text()),
  nested: f.optional(f.record('Nested', { text: f.optional(TEXT), token: f.optional(TOKEN), small: f.optional(SMALL), free: f.optional(f.text()) })),
  list: f.optional(f.list(TOKEN, 2)),
  flag: f.optional(f.boolean()),
  pick: f.optional(f.choice(['a', 'b'])),
  error: f.optional(f.error()),
  data: f.optional(f.json()),
} as const;
const parse = validator(declare('probe', FIELDS));

const accepted = (fields: Record<string, unknown>) => {
  const r = parse({ type: 'probe', ...fields });
  if (!r.ok) throw new Error(`rejected ${JSON.stringify(fields)}: ${r.reason}`);
  return r.value;
};
const reason = (fields: Record<string, unknown>) => {
  const r = parse({ type: 'probe', ...fields });
  if (r.ok) throw new Error(`accepted ${JSON.stringify(fields)}`);
  return r.reason;
};

describe('validator limits, top-level (inline) and nested (generic checker)', () => {
  const at = (path: 'top' | 'nested', name: string, v: unknown) => (path === 'top' ? { [name]: v } : { nested: { [name]: v } });
  const named = (path: 'top' | 'nested', name: string) => (path === 'top' ? `${name}: ` : `nested: .${name} `);

  describe.each(['top', 'nested'] as const)('%s', (path) => {
    it('accepts a string of exactly maxLength characters and rejects one more', () => {
      expect(accepted(at(path, 'text', 'abc'))).toMatchObject(at(path, 'text', 'abc'));
      expect(accepted(at(path, 'text', 'ab'))).toMatchObject(at(path, 'text', 'ab'));
      expect(reason(at(path, 'text', 'abcd'))).toBe(`${named(path, 'text')}must be at most 3 characters (got 4)`);
    });
    it('accepts a string of any length when no maxLength is declared', () => {
      const long = 'x'.repeat(10_000);
      expect(accepted(at(path, 'free', long))).toMatchObject(at(path, 'free', long));
    });
    it('rejects a non-string where a string is declared, an array or a string-like object too', () => {
      const stringLike = { length: 1, isWellFormed: () => true };
      for (const wrong of [3, ['a'], stringLike]) expect(reason(at(path, 'text', wrong))).toBe(`${named(path, 'text')}must be a string`);
    });
    it('accepts an empty string unless the field is nonEmpty, and one character either way', () => {
      expect(accepted(at(path, 'text', ''))).toMatchObject(at(path, 'text', ''));
      expect(accepted(at(path, 'token', 'a'))).toMatchObject(at(path, 'token', 'a'));
      expect(reason(at(path, 'token', ''))).toBe(`${named(path, 'token')}must not be empty`);
    });
    it('accepts an integer at min and at max, and rejects min − 1, max + 1 and a non-integer', () => {
      expect(accepted(at(path, 'small', -2))).toMatchObject(at(path, 'small', -2));
      expect(accepted(at(path, 'small', 5))).toMatchObject(at(path, 'small', 5));
      expect(accepted(at(path, 'small', 0))).toMatchObject(at(path, 'small', 0));
      for (const wrong of [-3, 6, 1.5, '1']) expect(reason(at(path, 'small', wrong))).toBe(`${named(path, 'small')}must be an integer from -2 to 5`);
    });
  });

  it('accepts a list of exactly maxItems valid items and rejects one more item', () => {
    expect(accepted({ list: [] })).toEqual({ type: 'probe', list: [] });
    expect(accepted({ list: ['a', 'b'] })).toEqual({ type: 'probe', list: ['a', 'b'] });
    expect(reason({ list: ['a', 'b', 'c'] })).toBe('list: must have at most 2 items (got 3)');
  });
  it('rejects a list naming the first wrong item, checked by the item field', () => {
    expect(reason({ list: ['a', ''] })).toBe('list: [1] must not be empty');
    expect(reason({ list: [7, 'a'] })).toBe('list: [0] must be a string');
    expect(reason({ list: 'a' })).toBe('list: must be an array');
  });
});

describe('validator, the other kinds', () => {
  it('rejects 0 where a boolean or a choice is declared (only strings and integers take the inline check)', () => {
    expect(reason({ flag: 0 })).toBe('flag: must be a boolean');
    expect(reason({ pick: 0 })).toBe('pick: must be one of a, b');
    expect(accepted({ flag: false, pick: 'b' })).toEqual({ type: 'probe', flag: false, pick: 'b' });
  });
  it('takes any JSON value as json, and rejects a function, a symbol and a bigint', () => {
    expect(accepted({ data: { a: [1] } }).data).toEqual({ a: [1] });
    expect(accepted({ data: 0 }).data).toBe(0);
    for (const wrong of [() => 1, Symbol('s'), 1n]) expect(reason({ data: wrong })).toBe('data: must be a JSON value');
  });
  it('keeps a nested record’s declared fields only, in a fresh object', () => {
    const nested = { text: 'a', small: 1, extra: 'x' };
    const value = accepted({ nested });
    expect(value).toEqual({ type: 'probe', nested: { text: 'a', small: 1 } });
  });
  it('copies a list, so the input array is not what is kept', () => {
    const list = ['a'];
    expect(accepted({ list }).list).not.toBe(list);
  });
  it('takes an error as a string, an object, or any other JSON value but null', () => {
    expect(accepted({ error: 'boom' }).error).toBe('boom');
    expect(accepted({ error: 429 }).error).toBe(429);
    expect(accepted({ error: true }).error).toBe(true);
    expect(accepted({ error: false }).error).toBe(false);
    expect(accepted({ error: 0 }).error).toBe(0);
    expect(accepted({ error: ['x', 1, null, [true]] }).error).toEqual(['x', 1, null, [true]]);
    expect(accepted({ error: null })).toEqual({ type: 'probe' });
    expect(reason({ error: Infinity })).toBe('error: must be a JSON value');
    expect(reason({ error: [NaN] })).toBe('error: must be a JSON value');
  });
  it('copies an error array as JSON text carries it', () => {
    const error = [['a']];
    const kept = accepted({ error }).error;
    expect(kept).toEqual(error);
    expect(kept).not.toBe(error);
  });
  it('keeps an error object’s name, message, and its loose members when of their type, dropping the rest', () => {
    expect(accepted({ error: { name: 'E', message: 'm', status: 503, statusCode: 504, code: 'ETIMEDOUT', stack: 's' } }).error).toEqual({
      name: 'E',
      message: 'm',
      status: 503,
      statusCode: 504,
      code: 'ETIMEDOUT',
    });
    expect(accepted({ error: { message: 'm', status: '503', statusCode: NaN, code: 7 } }).error).toEqual({ message: 'm' });
    expect(accepted({ error: { name: null, message: undefined } }).error).toEqual({});
  });
  it('rejects an error object whose name or message is not a string', () => {
    expect(reason({ error: { name: 5 } })).toBe('error: .name must be a string');
    expect(reason({ error: { name: 'E', message: {} } })).toBe('error: .message must be a string');
  });
  it('takes an error array nested 513 levels deep (depths 0 to 512) and rejects one level more', () => {
    const nest = (levels: number): unknown => (levels === 1 ? [] : [nest(levels - 1)]);
    expect(accepted({ error: nest(513) }).error).toEqual(nest(513));
    expect(reason({ error: nest(514) })).toBe('error: must be a JSON value');
  });
});

describe('rowValidator', () => {
  it('fills each declared column in order, undefined for an absent one', () => {
    const rows = rowValidator(declare('probe', FIELDS));
    const row = new Array<unknown>(rows.columns.length).fill('stale');
    expect(rows.fill({ type: 'probe', small: 5, list: ['a'] }, row)).toBeUndefined();
    expect(rows.columns).toEqual(['text', 'token', 'small', 'free', 'nested', 'list', 'flag', 'pick', 'error', 'data']);
    expect(row).toEqual([undefined, undefined, 5, undefined, undefined, ['a'], undefined, undefined, undefined, undefined]);
  });
});
