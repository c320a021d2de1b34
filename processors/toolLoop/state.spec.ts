import { describe, expect, it } from 'vitest';
import { appendRecord, attachOutcome, callRecord, toolRecord, type ToolRecord } from './state.js';

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
