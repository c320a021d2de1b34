// The events a client has yet to hand to Kafka, in the order they were made. Requests (a
// tool call, a bot message: someone waits for their decision) and publications (outcomes,
// compactions, run ends, people's messages: nobody waits) share one queue, so a call reaches
// loopguard after the outcome published before it. A request leaves the queue once its answer
// is no longer awaited (its time is up, or the connection is known to be down): a decision
// made later would answer nobody. Publications stay until they are sent; past `max` of them
// the oldest is dropped and counted.

/** What a request's sender waits on. */
export interface RequestTicket {
  /** Set once Kafka acknowledged the request: from then on only the processor can be late. */
  acked: boolean;
  /** False once nobody waits for the answer any more. */
  awaited: boolean;
}

export interface Pending {
  readonly topic: string;
  readonly key: string;
  /** The state key whose partition the record goes to (the Kafka key names the record). */
  readonly partitionKey: string;
  /** The Avro body, framed with its schema's id when sent (the registry may be away until then). */
  readonly body: Buffer;
  /** Absent for a publication. */
  readonly request?: RequestTicket;
}

export class Outbox {
  private queue: Pending[] = [];
  private publications = 0;
  /** Publications dropped because the queue was full. */
  dropped = 0;

  constructor(private readonly max: number) {}

  get size(): number {
    return this.queue.length;
  }

  /** Queues `p` behind everything queued before; returns how many publications it pushed out. */
  push(p: Pending): number {
    let out = 0;
    if (p.request === undefined) {
      while (this.publications >= this.max) {
        const oldest = this.queue.findIndex((q) => q.request === undefined);
        this.queue.splice(oldest, 1);
        this.publications--;
        out++;
      }
      this.publications++;
    }
    this.queue.push(p);
    this.dropped += out;
    return out;
  }

  /** Up to `n` entries from the front, leaving out requests nobody awaits. */
  take(n: number): Pending[] {
    const batch: Pending[] = [];
    while (batch.length < n && this.queue.length > 0) {
      const p = this.queue.shift()!;
      if (p.request === undefined) this.publications--;
      else if (!p.request.awaited) continue;
      batch.push(p);
    }
    return batch;
  }

  /** Puts a batch that was not sent back at the front, in its order (requests only while awaited). */
  putBack(batch: readonly Pending[]): void {
    const kept = batch.filter((p) => p.request === undefined || p.request.awaited);
    this.publications += kept.filter((p) => p.request === undefined).length;
    this.queue = kept.concat(this.queue);
  }

  /** Removes the requests still queued: their answer comes from the failure policy. */
  dropRequests(): void {
    this.queue = this.queue.filter((p) => p.request === undefined);
  }
}
