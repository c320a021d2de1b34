// A transaction set up before its batch arrives. kafkajs adds a transaction's partitions
// (AddPartitionsToTxn) when its first records are sent and its group's offsets
// (AddOffsetsToTxn) when they are sent, each a round trip to the transaction coordinator
// with a write to its log, in line with the batch: five round trips one after the other
// (AddPartitionsToTxn, Produce, AddOffsetsToTxn, TxnOffsetCommit, EndTxn). A producer that
// knows where its next batch will write (the partitions its last one wrote, the same group)
// adds them as soon as its last transaction ends; kafkajs's own requests for what is already
// added are then answered here, without a round trip, and the batch waits only for Produce and
// TxnOffsetCommit (sent together) and EndTxn.

/** The transaction coordinator's calls that kafkajs makes (broker/index.js in kafkajs 2.2.4). */
interface TxnCoordinator {
  initProducerId(args: { transactionalId: string; transactionTimeout?: number }): Promise<{ producerId: number; producerEpoch: number }>;
  addPartitionsToTxn(args: { transactionalId: string; producerId: number; producerEpoch: number; topics: Array<{ topic: string; partitions: number[] }> }): Promise<unknown>;
  addOffsetsToTxn(args: { transactionalId: string; producerId: number; producerEpoch: number; groupId: string }): Promise<unknown>;
  endTxn(args: unknown): Promise<unknown>;
}

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

const tp = (topic: string, partition: number) => `${topic}\t${partition}`;

/** What kafkajs's AddPartitionsToTxn and AddOffsetsToTxn resolve with when nothing failed (it reads nothing of it). */
const NOTHING_FAILED = Object.freeze({ throttleTime: 0, errors: [] });

/**
 * One transactional producer's transaction coordinator, seen through this: it remembers the
 * producer id and epoch kafkajs got, and what the open transaction has added; an EndTxn starts
 * the next transaction with nothing added.
 */
export class TransactionAhead {
  private ids: { producerId: number; producerEpoch: number } | undefined;
  private readonly added = new Set<string>();
  private group: string | undefined;
  /** Finds the transaction coordinator (set once the producer's cluster exists). */
  find: ((transactionalId: string) => Promise<object>) | undefined;

  /** `coordinator`, answering requests for partitions and offsets already in the transaction. */
  wrap<B extends object>(coordinator: B): B {
    const c = coordinator as unknown as TxnCoordinator;
    const overrides: Partial<TxnCoordinator> = {
      initProducerId: async (args) => {
        this.forget();
        const r = await c.initProducerId(args);
        this.ids = { producerId: r.producerId, producerEpoch: r.producerEpoch };
        return r;
      },
      addPartitionsToTxn: async (args) => {
        const wanted = args.topics.flatMap(({ topic, partitions }) => partitions.map((p) => tp(topic, p)));
        if (wanted.every((k) => this.added.has(k)) && this.isCurrent(args)) return NOTHING_FAILED;
        const r = await c.addPartitionsToTxn(args);
        for (const k of wanted) this.added.add(k);
        return r;
      },
      addOffsetsToTxn: async (args) => {
        if (this.group === args.groupId && this.isCurrent(args)) return NOTHING_FAILED;
        const r = await c.addOffsetsToTxn(args);
        this.group = args.groupId;
        return r;
      },
      endTxn: (args) => {
        this.forget();
        return c.endTxn(args);
      },
    };
    return new Proxy(coordinator, {
      get(target, prop, receiver) {
        if (typeof prop === 'string' && Object.hasOwn(overrides, prop)) return overrides[prop as keyof TxnCoordinator];
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
  }

  /**
   * Adds `partitions` and the offsets of `groupId` to the transaction kafkajs has begun (and not
   * yet sent anything in). Rejects as the coordinator does, CONCURRENT_TRANSACTIONS included
   * (the previous transaction's markers are still being written).
   */
  async prepare(transactionalId: string, partitions: readonly TopicPartition[], groupId: string): Promise<void> {
    if (this.find === undefined || this.ids === undefined) throw new Error('no transactional producer id yet');
    const c = (await this.find(transactionalId)) as TxnCoordinator;
    const { producerId, producerEpoch } = this.ids;
    const topics = new Map<string, number[]>();
    for (const { topic, partition } of partitions) {
      if (this.added.has(tp(topic, partition))) continue;
      let ps = topics.get(topic);
      if (ps === undefined) topics.set(topic, (ps = []));
      ps.push(partition);
    }
    if (topics.size > 0) await c.addPartitionsToTxn({ transactionalId, producerId, producerEpoch, topics: [...topics].map(([topic, ps]) => ({ topic, partitions: ps })) });
    await c.addOffsetsToTxn({ transactionalId, producerId, producerEpoch, groupId });
  }

  /** Whether `groupId`'s offsets are in the open transaction. */
  hasOffsets(groupId: string): boolean {
    return this.group === groupId;
  }

  private isCurrent(args: { producerId: number; producerEpoch: number }): boolean {
    return this.ids !== undefined && args.producerId === this.ids.producerId && args.producerEpoch === this.ids.producerEpoch;
  }

  private forget(): void {
    this.added.clear();
    this.group = undefined;
  }
}
