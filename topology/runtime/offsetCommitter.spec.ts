import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import type { InputPosition } from './port.js';
import { OffsetCommitter } from './offsetCommitter.js';

const log = createLogger({ log: { level: 'silent', redact: true } }, 'test');
const at = (partition: number, nextOffset: number): InputPosition => ({ topic: 't', partition, nextOffset });

/** A commit function whose calls wait until released, recording what each carried. */
function gated(answer: () => boolean | Error = () => true) {
  const calls: InputPosition[][] = [];
  const gates: Array<() => void> = [];
  const commit = async (positions: readonly InputPosition[]) => {
    calls.push([...positions]);
    await new Promise<void>((r) => gates.push(r));
    const a = answer();
    if (a instanceof Error) throw a;
    return a;
  };
  const release = async () => {
    while (gates.length === 0) await Promise.resolve();
    gates.shift()!();
  };
  return { calls, commit, release };
}

describe('OffsetCommitter', () => {
  it('keeps one commit in flight and sends the latest position of every partition queued meanwhile in the next', async () => {
    const g = gated();
    const c = new OffsetCommitter(g.commit, log);
    c.add(at(0, 10));
    c.add(at(1, 5));
    c.add(at(0, 20));
    c.add(at(0, 30));
    expect(c.committedOffset('t', 0)).toBeUndefined();
    await g.release();
    await g.release();
    await c.flush();
    expect(g.calls).toEqual([[at(0, 10)], [at(1, 5), at(0, 30)]]);
    expect(c.committedOffset('t', 0)).toBe(30);
    expect(c.committedOffset('t', 1)).toBe(5);
  });

  it('counts nothing committed from a commit that failed or was not tried, and commits again on the next position', async () => {
    const answers: Array<boolean | Error> = [new Error('rebalancing'), false, true];
    const g = gated(() => answers.shift()!);
    const c = new OffsetCommitter(g.commit, log);
    c.add(at(0, 10));
    await g.release();
    await c.flush();
    expect(c.committedOffset('t', 0)).toBeUndefined();
    c.add(at(0, 11));
    await g.release();
    await c.flush();
    expect(c.committedOffset('t', 0)).toBeUndefined();
    c.add(at(0, 12));
    await g.release();
    await c.flush();
    expect(c.committedOffset('t', 0)).toBe(12);
    expect(g.calls.map((x) => x[0]!.nextOffset)).toEqual([10, 11, 12]);
  });

  it('never lowers what it reports committed', async () => {
    const g = gated();
    const c = new OffsetCommitter(g.commit, log);
    c.add(at(0, 10));
    await g.release();
    await c.flush();
    c.add(at(0, 4));
    await g.release();
    await c.flush();
    expect(c.committedOffset('t', 0)).toBe(10);
  });
});
