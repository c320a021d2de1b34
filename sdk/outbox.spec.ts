import { describe, expect, it } from 'vitest';
import { Outbox, type Pending } from './outbox.js';

const pub = (n: number): Pending => ({ topic: 't', key: `k${n}`, partitionKey: 'k', body: Buffer.from([n]) });
const req = (n: number, awaited = true): Pending => ({ ...pub(n), request: { acked: false, awaited } });
const keys = (ps: readonly Pending[]) => ps.map((p) => p.key);

describe('the outbox', () => {
  it('gives events back in the order they were queued, requests and publications alike', () => {
    const o = new Outbox(10);
    [pub(1), req(2), pub(3)].forEach((p) => o.push(p));
    expect(keys(o.take(2))).toEqual(['k1', 'k2']);
    expect(keys(o.take(5))).toEqual(['k3']);
    expect(o.size).toBe(0);
  });

  it('leaves out a request nobody awaits any more', () => {
    const o = new Outbox(10);
    const late = req(2);
    [pub(1), late, pub(3)].forEach((p) => o.push(p));
    late.request!.awaited = false;
    expect(keys(o.take(5))).toEqual(['k1', 'k3']);
  });

  it('drops the oldest publication when full, counting it, and never a request', () => {
    const o = new Outbox(2);
    expect([req(0), pub(1), pub(2)].map((p) => o.push(p))).toEqual([0, 0, 0]);
    expect(o.push(pub(3))).toBe(1);
    expect(o.push(req(4))).toBe(0);
    expect(o.dropped).toBe(1);
    expect(keys(o.take(10))).toEqual(['k0', 'k2', 'k3', 'k4']);
  });

  it('puts an unsent batch back at the front, in its order', () => {
    const o = new Outbox(10);
    [pub(1), req(2), pub(3), pub(4)].forEach((p) => o.push(p));
    const batch = o.take(3);
    o.push(pub(5));
    batch[1]!.request!.awaited = false; // its answer came from the failure policy meanwhile
    o.putBack(batch);
    expect(keys(o.take(10))).toEqual(['k1', 'k3', 'k4', 'k5']);
  });

  it('removes every queued request when the connection is down, keeping the publications', () => {
    const o = new Outbox(10);
    [req(1), pub(2), req(3)].forEach((p) => o.push(p));
    o.dropRequests();
    expect(keys(o.take(10))).toEqual(['k2']);
  });
});
