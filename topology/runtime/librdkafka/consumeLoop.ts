// The poll loop every librdkafka consumer here runs: consume(n) hands back whatever is queued
// (a batch across partitions) as soon as there is any, or nothing after a short wait. Each
// call holds a libuv thread-pool thread while it waits, so the wait is kept short.
//
// The binding emits a consume call's partition-EOF events before it hands over that call's
// messages (lib/kafka-consumer.js, _consumeNum), so an EOF can announce the end of a partition
// whose last records are still in the batch not yet delivered. EOFs are therefore held and
// handed over only after the messages of the same call: a restore that took an early EOF as
// "done" dropped the partition's last records.
import { setTimeout as delay } from 'node:timers/promises';
import type { EofEvent, Message } from '@confluentinc/kafka-javascript';
import type { Logger } from '../../logger.js';
import { AUTHORIZATION_CODES } from '../refusals.js';
import type { Consumer } from './client.js';

const WAIT_MS = 100;

export interface ConsumeLoop {
  /** Resolves once the loop has ended (no consume call in flight). */
  stop(): Promise<void>;
}

/**
 * `onRefused`: a consume failed because the broker refused this client an ACL (its group, its
 * topic). That is no fetch error librdkafka recovers from: the loop ends, and this is told why.
 */
export function consumeLoop(
  c: Consumer,
  size: number,
  onMessages: (messages: Message[]) => void | Promise<void>,
  log: Logger,
  onEof?: (eof: EofEvent) => void,
  onRefused?: (e: { code: number; message: string }) => void,
): ConsumeLoop {
  let running = true;
  c.setDefaultConsumeTimeout(WAIT_MS);
  c.setDefaultIsTimeoutOnlyForFirstMessage(true);
  const eofs: EofEvent[] = [];
  if (onEof) c.on('partition.eof', (e: EofEvent) => eofs.push(e));
  const once = () =>
    new Promise<Message[]>((resolve, reject) =>
      c.consume(size, (err, messages) => {
        if (err) reject(err);
        else resolve(messages);
      }),
    );
  const loop = (async () => {
    while (running) {
      let messages: Message[];
      try {
        messages = await once();
      } catch (e) {
        if (!running) break;
        const code = (e as { code?: number }).code ?? 0;
        if (onRefused !== undefined && AUTHORIZATION_CODES[code] !== undefined) {
          running = false;
          onRefused(e as { code: number; message: string });
          break;
        }
        // Errors here are per fetch (a broker away, a partition moving); librdkafka recovers.
        log.warn({ err: (e as Error).message }, 'librdkafka consume failed; polling again');
        await delay(WAIT_MS);
        continue;
      }
      if (messages.length > 0) await onMessages(messages);
      for (const e of eofs.splice(0)) onEof!(e);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
  };
}
