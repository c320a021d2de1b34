// The threshold rules of §2.1 (clamp, load order) and §4.3 (a tool's own thresholds clamped again),
// each at its number and on both sides of it.
import { describe, expect, it } from 'vitest';
import { loopDetectionBlockSchema, resolveLoopDetection, type LoopDetectionBlock } from './config.js';
import { callThresholds } from './decide.js';

const levels = (block: LoopDetectionBlock) => {
  const r = resolveLoopDetection(block, undefined);
  return [r.warningThreshold, r.criticalThreshold, r.globalCircuitBreakerThreshold];
};

/** Each clamp at its number and on both sides, from the defaults 10 / 20 / 30 (§2.1, and again §4.3). */
const CLAMPS: [{ warningThreshold?: number; criticalThreshold?: number }, number[]][] = [
  [{ warningThreshold: 19 }, [19, 20, 30]],
  [{ warningThreshold: 20 }, [20, 21, 30]],
  [{ warningThreshold: 21 }, [21, 22, 30]],
  [{ criticalThreshold: 29 }, [10, 29, 30]],
  [{ criticalThreshold: 30 }, [10, 30, 31]],
  [{ criticalThreshold: 31 }, [10, 31, 32]],
];

describe('§2.1 clamp: critical ≤ warning → warning + 1, then global ≤ critical → critical + 1', () => {
  it.each([...CLAMPS, [{ warningThreshold: 29 }, [29, 30, 31]]])('%j resolves to warning / critical / global %j', (block, expected) => {
    expect(levels(block)).toEqual(expected);
  });
});

describe('§2.1 loading: a block that sets both must have warning below critical, critical below global', () => {
  const loads = (block: object) => loopDetectionBlockSchema.safeParse(block).success;
  it.each([
    [{ warningThreshold: 9, criticalThreshold: 10 }, true],
    [{ warningThreshold: 10, criticalThreshold: 10 }, false],
    [{ warningThreshold: 11, criticalThreshold: 10 }, false],
    [{ criticalThreshold: 29, globalCircuitBreakerThreshold: 30 }, true],
    [{ criticalThreshold: 30, globalCircuitBreakerThreshold: 30 }, false],
    [{ criticalThreshold: 31, globalCircuitBreakerThreshold: 30 }, false],
  ])('%j loads: %s', (block, ok) => {
    expect(loads(block)).toBe(ok);
  });
});

describe('§4.3 a tool entry clamped again from the run’s thresholds (10 / 20 / 30)', () => {
  const run = resolveLoopDetection({}, undefined);
  const of = (entry: { warningThreshold?: number; criticalThreshold?: number }) => {
    const r = callThresholds(run, entry);
    return [r.warningThreshold, r.criticalThreshold, r.globalCircuitBreakerThreshold];
  };
  it.each(CLAMPS)('%j gives %j', (entry, expected) => {
    expect(of(entry)).toEqual(expected);
  });
});
