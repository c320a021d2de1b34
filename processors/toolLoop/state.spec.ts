import { describe, expect, it } from 'vitest';
import { countRepeats, pingPong } from './detect.js';
import { appendRecord, argsKeyOf, attachOutcome, callRecord, hasArgs, toolRecord, type ToolRecord } from './state.js';

// A small deterministic generator (no Math.random: a failure must reproduce).
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A fresh string with the same content each time (what every parsed event brings). */
const fresh = (s: string): string => [...s].join('');

describe('history records share the strings of earlier records of the same call', () => {
  it('holds exactly what records built from each event would hold', () => {
    const next = lcg(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    const tools = ['read', 'write', 'exec'];
    const hashes = ['a'.repeat(64), 'b'.repeat(64), 'c'.repeat(64)];
    for (let run = 0; run < 50; run++) {
      let shared: readonly ToolRecord[] = [];
      let plain: readonly ToolRecord[] = [];
      for (let i = 0; i < 80; i++) {
        // The same args hash under another tool must not lend its tool name, nor the reverse.
        const toolName = fresh(pick(tools));
        const argsHash = fresh(`${pick(tools)}:${pick(hashes)}`);
        const ts = 1_700_000_000_000 + i;
        if (next() < 0.5) {
          const id = `c${run}-${i}`;
          shared = appendRecord(shared, callRecord(shared, toolName, argsHash, id, ts), 30);
          plain = appendRecord(plain, toolRecord(toolName, argsHash, id, undefined, undefined, ts), 30);
        } else {
          const id = next() < 0.5 ? `c${run}-${i - 1}` : undefined;
          const outcome = toolRecord(toolName, argsHash, id, fresh(pick(hashes)), next() < 0.1 ? 'nope' : undefined, ts);
          shared = attachOutcome(shared, outcome, 30);
          plain = attachOutcome(plain, { ...outcome }, 30);
        }
        expect(shared).toEqual(plain);
      }
      expect(shared.length).toBe(30);
    }
  });
});

describe('argsKeyOf', () => {
  it('gives equal hashes equal keys, and records the key of their own hash', () => {
    const hashes = ['', 'read:' + '0'.repeat(64), 'read:' + '0'.repeat(63) + '1', 'ﬀ\u{1F600}', '__proto__', 'x'.repeat(10_000)];
    for (const h of hashes) {
      expect(argsKeyOf(fresh(h))).toBe(argsKeyOf(h));
      expect(Number.isInteger(argsKeyOf(h)) && Math.abs(argsKeyOf(h)) < 2 ** 31).toBe(true);
      expect(toolRecord('read', h, undefined, undefined, undefined, 0).argsKey).toBe(argsKeyOf(h));
      expect(callRecord([], 'read', h, undefined, 0).argsKey).toBe(argsKeyOf(h));
    }
    // Hashes that differ only at their end (what the throughput bench sends) get different keys.
    expect(argsKeyOf(hashes[1]!)).not.toBe(argsKeyOf(hashes[2]!));
  });

  it('never decides alone: records whose keys collide are still told apart by their hashes', () => {
    // Two different strings with one FNV-1a key, found by search; records of one must not count for the other.
    const [a, b] = collidingPair();
    expect(a).not.toBe(b);
    expect(argsKeyOf(a)).toBe(argsKeyOf(b));
    const history = [callRecord([], 'read', a, 'c1', 0)];
    expect(attachOutcome(history, toolRecord('read', b, undefined, 'r', undefined, 1), 30)).toHaveLength(2);
    expect(hasArgs(history[0]!, argsKeyOf(b), b)).toBe(false);
    expect(hasArgs(history[0]!, argsKeyOf(a), fresh(a))).toBe(true);
    expect(countRepeats(history, 'read', b).recentCount).toBe(0);
    expect(countRepeats(history, 'read', fresh(a)).recentCount).toBe(1);
    const alternating = [...history, callRecord(history, 'read', 'other', 'c2', 1)];
    expect(pingPong(alternating, b).count).toBe(0);
    expect(pingPong(alternating, fresh(a)).count).toBe(3);
  });
});

/** Two strings with the same argsKeyOf, by a birthday search over short strings. */
function collidingPair(): [string, string] {
  const seen = new Map<number, string>();
  for (let i = 0; ; i++) {
    const s = `h${i.toString(36)}`;
    const k = argsKeyOf(s);
    const other = seen.get(k);
    if (other !== undefined) return [other, s];
    seen.set(k, s);
  }
}
