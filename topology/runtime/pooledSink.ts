// The at-least-once sink of either client: a pool of idempotent senders, one taken per batch in
// flight. A producer acknowledges one request at a time, so batches of different partitions
// sharing one would wait for each other's acks; a batch's writes stay in order on its one sender.
import type { OffsetCommitter } from './offsetCommitter.js';
import type { Sender, Sink } from './port.js';

export interface SenderPool<S extends Sender> {
  acquire(): Promise<S>;
  release(s: S): void;
  /** Closes every sender the pool opened, idle or not. */
  close(): Promise<void>;
}

/**
 * `size` senders opened before the first batch (opening one, a connection, metadata and a
 * producer id, took 110–200 ms with kafkajs, which the first batches of a cold start waited for,
 * one partition after another), more on demand: never more than the batches in flight at once.
 */
export async function senderPool<S extends Sender>(open: () => Promise<S>, size: number): Promise<SenderPool<S>> {
  const all: S[] = [];
  const opened = async () => {
    const s = await open();
    all.push(s);
    return s;
  };
  const idle: S[] = await Promise.all(Array.from({ length: Math.max(1, size) }, opened));
  return {
    acquire: async () => idle.pop() ?? (await opened()),
    release: (s) => {
      idle.push(s);
    },
    close: async () => {
      for (const s of all) await s.close();
    },
  };
}

/** Input positions go to `committer` once a batch's writes are acknowledged. */
export function pooledSink<S extends Sender>(senders: SenderPool<S>, committer: OffsetCommitter): Sink {
  return {
    begin() {
      // The sender is taken when the first write is sent and given back once, when the batch ends.
      let sender: Promise<S> | undefined;
      let chain: Promise<void> = Promise.resolve();
      const settle = async () => {
        await chain.catch(() => undefined);
        const s = await sender?.catch(() => undefined);
        if (s !== undefined) senders.release(s);
        sender = undefined;
      };
      return {
        write(stages) {
          chain = chain.then(async () => {
            const s = await (sender ??= senders.acquire());
            for (const stage of stages) await s.send(stage);
          });
          chain.catch(() => undefined); // it surfaces from commit
        },
        async commit(position) {
          try {
            await chain;
          } finally {
            await settle();
          }
          committer.add(position);
        },
        abandon: settle,
      };
    },
    committedOffset: (topic, partition) => committer.committedOffset(topic, partition),
    close: () => senders.close(),
  };
}
