import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { checkYoungGeneration, tuneReplayHeap, YOUNG_CAP_BYTES, type HeapControls } from './heap.js';

function fakeV8(young: number): HeapControls & { flags: string[]; young: number } {
  const v8 = {
    flags: [] as string[],
    young,
    setFlags: (f: string) => void v8.flags.push(f),
    youngBytes: () => v8.young,
  };
  return v8;
}

describe('tuneReplayHeap', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('caps old-space growth at once and lets the young generation grow until the cap', () => {
    const v8 = fakeV8(2 << 20);
    tuneReplayHeap(v8);
    expect(v8.flags).toEqual(['--heap-growing-percent=50']);

    v8.young = YOUNG_CAP_BYTES / 2;
    vi.advanceTimersByTime(50);
    expect(v8.flags).toEqual(['--heap-growing-percent=50']);

    v8.young = YOUNG_CAP_BYTES;
    vi.advanceTimersByTime(10);
    expect(v8.flags).toEqual(['--heap-growing-percent=50', '--semi-space-growth-factor=1']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stops the young generation at once when it is already at the cap', () => {
    const v8 = fakeV8(YOUNG_CAP_BYTES * 2);
    tuneReplayHeap(v8);
    expect(v8.flags).toEqual(['--heap-growing-percent=50', '--semi-space-growth-factor=1']);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('checkYoungGeneration', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('stops the young generation between timer turns, once', () => {
    const v8 = fakeV8(2 << 20);
    tuneReplayHeap(v8);
    expect(checkYoungGeneration()).toBe(false);
    v8.young = YOUNG_CAP_BYTES;
    expect(checkYoungGeneration()).toBe(true);
    expect(checkYoungGeneration()).toBe(true);
    vi.advanceTimersByTime(50);
    expect(v8.flags).toEqual(['--heap-growing-percent=50', '--semi-space-growth-factor=1']);
  });
});
