import { describe, expect, it } from 'vitest';
import { TransactionAhead } from './transactionAhead.js';

const protocolError = (type: string) => Object.assign(new Error(type), { type });

/** A transaction coordinator that records the requests it gets; `failNext` fails the next one. */
function fakeCoordinator() {
  const sent: Array<[string, unknown]> = [];
  let epoch = 0;
  let failNext: Error | undefined;
  const answer = (name: string, args: unknown) => {
    sent.push([name, args]);
    const e = failNext;
    failNext = undefined;
    if (e !== undefined) return Promise.reject(e);
    return Promise.resolve({ from: name });
  };
  const broker = {
    initProducerId: async (args: { transactionalId: string }) => {
      sent.push(['initProducerId', args]);
      return { producerId: 7, producerEpoch: ++epoch };
    },
    addPartitionsToTxn: (args: unknown) => answer('addPartitionsToTxn', args),
    addOffsetsToTxn: (args: unknown) => answer('addOffsetsToTxn', args),
    endTxn: (args: unknown) => answer('endTxn', args),
    nodeId: 1,
  };
  return { broker, sent, failNext: (e: Error) => (failNext = e) };
}

function setUp() {
  const c = fakeCoordinator();
  const ahead = new TransactionAhead();
  const wrapped = ahead.wrap(c.broker);
  ahead.find = async () => wrapped;
  return { c, ahead, wrapped };
}

const ids = (epoch: number) => ({ transactionalId: 'tx', producerId: 7, producerEpoch: epoch });
const parts = [
  { topic: 'verdicts', partition: 2 },
  { topic: 'changelog', partition: 2 },
];

describe('TransactionAhead', () => {
  it('adds partitions and offsets ahead, then answers kafkajs for them without a request', async () => {
    const { c, ahead, wrapped } = setUp();
    await wrapped.initProducerId({ transactionalId: 'tx' });
    await ahead.prepare('tx', parts, 'group');
    expect(c.sent.map(([n]) => n)).toEqual(['initProducerId', 'addPartitionsToTxn', 'addOffsetsToTxn']);
    expect(c.sent[1]![1]).toEqual({
      ...ids(1),
      topics: [
        { topic: 'verdicts', partitions: [2] },
        { topic: 'changelog', partitions: [2] },
      ],
    });
    expect(ahead.hasOffsets('group')).toBe(true);
    expect(ahead.hasOffsets('other')).toBe(false);

    await wrapped.addPartitionsToTxn({ ...ids(1), topics: [{ topic: 'verdicts', partitions: [2] }] });
    await wrapped.addOffsetsToTxn({ ...ids(1), groupId: 'group' });
    expect(c.sent).toHaveLength(3);
    // A partition not set up ahead (a dead letter) and another group go to the coordinator.
    await wrapped.addPartitionsToTxn({ ...ids(1), topics: [{ topic: 'dead-letter', partitions: [2] }] });
    await wrapped.addOffsetsToTxn({ ...ids(1), groupId: 'other' });
    expect(c.sent.map(([n]) => n).slice(3)).toEqual(['addPartitionsToTxn', 'addOffsetsToTxn']);
  });

  it('forgets what was added when the transaction ends, and when the producer id changes', async () => {
    const { c, ahead, wrapped } = setUp();
    await wrapped.initProducerId({ transactionalId: 'tx' });
    await ahead.prepare('tx', parts, 'group');
    await wrapped.endTxn({ ...ids(1), transactionResult: true });
    expect(ahead.hasOffsets('group')).toBe(false);
    await wrapped.addPartitionsToTxn({ ...ids(1), topics: [{ topic: 'verdicts', partitions: [2] }] });
    expect(c.sent.at(-1)![0]).toBe('addPartitionsToTxn');

    await ahead.prepare('tx', parts, 'group');
    const before = c.sent.length;
    await wrapped.initProducerId({ transactionalId: 'tx' }); // epoch 2: the transaction is gone
    await wrapped.addPartitionsToTxn({ ...ids(2), topics: [{ topic: 'changelog', partitions: [2] }] });
    await wrapped.addOffsetsToTxn({ ...ids(2), groupId: 'group' });
    expect(c.sent.slice(before).map(([n]) => n)).toEqual(['initProducerId', 'addPartitionsToTxn', 'addOffsetsToTxn']);
  });

  it('answers nothing for a request of another epoch', async () => {
    const { c, ahead, wrapped } = setUp();
    await wrapped.initProducerId({ transactionalId: 'tx' });
    await ahead.prepare('tx', parts, 'group');
    await wrapped.addOffsetsToTxn({ ...ids(0), groupId: 'group' });
    expect(c.sent.at(-1)).toEqual(['addOffsetsToTxn', { ...ids(0), groupId: 'group' }]);
  });

  it('rejects as the coordinator does and counts nothing as added', async () => {
    const { c, ahead, wrapped } = setUp();
    await expect(ahead.prepare('tx', parts, 'group')).rejects.toThrow('no transactional producer id');
    await wrapped.initProducerId({ transactionalId: 'tx' });
    c.failNext(protocolError('CONCURRENT_TRANSACTIONS'));
    await expect(ahead.prepare('tx', parts, 'group')).rejects.toThrow('CONCURRENT_TRANSACTIONS');
    expect(ahead.hasOffsets('group')).toBe(false);
    await wrapped.addPartitionsToTxn({ ...ids(1), topics: [{ topic: 'verdicts', partitions: [2] }] });
    expect(c.sent.map(([n]) => n)).toEqual(['initProducerId', 'addPartitionsToTxn', 'addPartitionsToTxn']);
  });

  it('passes other calls and properties through', async () => {
    const { c, wrapped } = setUp();
    expect(wrapped.nodeId).toBe(1);
    expect(await wrapped.endTxn({})).toEqual({ from: 'endTxn' });
    expect(c.sent).toHaveLength(1);
  });
});
