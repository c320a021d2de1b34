import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { holdReplayHeap, restoreV8Flags, tuneReplayHeap, YOUNG_CAP_BYTES, type HeapControls } from './heap.js';

/** V8 as far as replay's heap tuning sees it: the flags in force, and the young generation's size. */
function fakeV8(young: number): HeapControls & { flags: Map<string, string>; young: number; time: number; sets: number } {
  const v8 = {
    flags: new Map<string, string>(),
    young,
    time: 0,
    sets: 0,
    setFlags: (f: string) => {
      v8.sets++;
      const [name, value] = f.split('=');
      v8.flags.set(name!, value!);
    },
    youngBytes: () => v8.young,
    now: () => v8.time,
  };
  return v8;
}

const GROWING = '--heap-growing-percent';
const YOUNG_GROWTH = '--semi-space-growth-factor';

describe('tuneReplayHeap', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('caps old-space growth at once and lets the young generation grow until the cap', () => {
    const v8 = fakeV8(2 << 20);
    tuneReplayHeap(v8);
    expect(v8.flags.get(GROWING)).toBe('50');
    expect(v8.flags.has(YOUNG_GROWTH)).toBe(false);

    v8.young = YOUNG_CAP_BYTES / 2;
    vi.advanceTimersByTime(50);
    expect(v8.flags.has(YOUNG_GROWTH)).toBe(false);

    v8.young = YOUNG_CAP_BYTES;
    vi.advanceTimersByTime(10);
    expect(v8.flags.get(YOUNG_GROWTH)).toBe('1');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stops the young generation at once when it is already at the cap', () => {
    const v8 = fakeV8(YOUNG_CAP_BYTES * 2);
    tuneReplayHeap(v8);
    expect(v8.flags.get(YOUNG_GROWTH)).toBe('1');
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('holdReplayHeap', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('stops the young generation between timer turns', () => {
    const v8 = fakeV8(2 << 20);
    tuneReplayHeap(v8);
    expect(holdReplayHeap()).toBe(false);
    v8.young = YOUNG_CAP_BYTES;
    expect(holdReplayHeap()).toBe(true);
    expect(v8.flags.get(YOUNG_GROWTH)).toBe('1');
  });

  it('sets the flags again after a worker thread reset them', () => {
    const v8 = fakeV8(YOUNG_CAP_BYTES);
    tuneReplayHeap(v8);
    v8.flags.clear(); // what starting a worker does
    v8.young = 4 * YOUNG_CAP_BYTES;
    v8.time += 10;
    expect(holdReplayHeap()).toBe(true);
    expect(Object.fromEntries(v8.flags)).toEqual({ [GROWING]: '50', [YOUNG_GROWTH]: '1' });
  });

  it('sets them again at most once per 10 ms (the fold calls it for every chunk)', () => {
    const v8 = fakeV8(YOUNG_CAP_BYTES);
    tuneReplayHeap(v8);
    const sets = v8.sets;
    v8.flags.clear();
    v8.time += 9;
    for (let i = 0; i < 100; i++) expect(holdReplayHeap()).toBe(true);
    expect(v8.sets).toBe(sets);
    expect(v8.flags.size).toBe(0);
    v8.time += 1;
    holdReplayHeap();
    expect(Object.fromEntries(v8.flags)).toEqual({ [GROWING]: '50', [YOUNG_GROWTH]: '1' });
  });
});

describe('restoreV8Flags', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("sets V8's defaults back, and nothing sets the tuned flags again after it", () => {
    const v8 = fakeV8(YOUNG_CAP_BYTES);
    tuneReplayHeap(v8);
    restoreV8Flags();
    expect(Object.fromEntries(v8.flags)).toEqual({ [GROWING]: '0', [YOUNG_GROWTH]: '2' });
    v8.time += 100;
    expect(holdReplayHeap()).toBe(true);
    expect(Object.fromEntries(v8.flags)).toEqual({ [GROWING]: '0', [YOUNG_GROWTH]: '2' });
  });

  it('touches nothing when called again: nothing is tuned once restored', () => {
    const v8 = fakeV8(YOUNG_CAP_BYTES);
    tuneReplayHeap(v8);
    restoreV8Flags();
    const sets = v8.sets;
    restoreV8Flags();
    expect(v8.sets).toBe(sets);
  });
});
