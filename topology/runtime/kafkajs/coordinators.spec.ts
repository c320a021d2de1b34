import { describe, expect, it } from 'vitest';
import { cachingCoordinators } from './coordinators.js';

const protocolError = (type: string) => Object.assign(new Error(type), { type });

/** A cluster whose lookups are counted, and whose coordinators fail their next call with `failNext`. */
function fakeCluster() {
  let lookups = 0;
  let failNext: Error | undefined;
  let lookupFails = false;
  const broker = {
    nodeId: 1,
    async endTxn(): Promise<string> {
      const e = failNext;
      failNext = undefined;
      if (e !== undefined) throw e;
      return 'ok';
    },
  };
  const cluster = {
    async findGroupCoordinator(_q: { groupId: string; coordinatorType?: number }): Promise<object> {
      lookups++;
      if (lookupFails) throw protocolError('COORDINATOR_NOT_AVAILABLE');
      return broker;
    },
  };
  return {
    cluster: cachingCoordinators(cluster),
    lookups: () => lookups,
    failNext: (e: Error) => (failNext = e),
    lookupFails: (v: boolean) => (lookupFails = v),
  };
}

const coordinator = async (c: ReturnType<typeof fakeCluster>, groupId = 'tx', coordinatorType = 1) =>
  (await c.cluster.findGroupCoordinator({ groupId, coordinatorType })) as { nodeId: number; endTxn(): Promise<string> };

describe('cachingCoordinators', () => {
  it('looks each coordinator up once while requests to it succeed', async () => {
    const c = fakeCluster();
    for (let i = 0; i < 5; i++) expect(await (await coordinator(c)).endTxn()).toBe('ok');
    expect(c.lookups()).toBe(1);
    expect((await coordinator(c)).nodeId).toBe(1);
    await coordinator(c, 'group', 0);
    await coordinator(c, 'tx', 0);
    expect(c.lookups()).toBe(3);
  });

  it('looks the coordinator up again after a request to it fails for a reason that may mean it moved', async () => {
    const c = fakeCluster();
    c.failNext(protocolError('NOT_COORDINATOR'));
    await expect((await coordinator(c)).endTxn()).rejects.toThrow('NOT_COORDINATOR');
    await coordinator(c);
    expect(c.lookups()).toBe(2);
    c.failNext(new Error('Connection closed'));
    await expect((await coordinator(c)).endTxn()).rejects.toThrow('Connection closed');
    await coordinator(c);
    expect(c.lookups()).toBe(3);
  });

  it('keeps the coordinator after an error that does not concern it', async () => {
    const c = fakeCluster();
    c.failNext(protocolError('CONCURRENT_TRANSACTIONS'));
    await expect((await coordinator(c)).endTxn()).rejects.toThrow('CONCURRENT_TRANSACTIONS');
    await coordinator(c);
    expect(c.lookups()).toBe(1);
  });

  it('does not remember a lookup that failed', async () => {
    const c = fakeCluster();
    c.lookupFails(true);
    await expect(coordinator(c)).rejects.toThrow('COORDINATOR_NOT_AVAILABLE');
    c.lookupFails(false);
    expect(await (await coordinator(c)).endTxn()).toBe('ok');
    expect(c.lookups()).toBe(2);
  });
});
