// Batches per partition from the consume loop's mixed batches: each partition's records queue
// here, one batch of a partition runs at a time and at most `concurrency` run at once. A
// partition whose queue grows long is paused (librdkafka then fetches no more of it and, on
// resume, goes on after the last record it handed over), so memory stays bounded.
//
// Records a batch did not handle (it failed, or stopped early while the partition is still
// held) go back to the front of their queue and are delivered again: the port's "the source
// resumes after the last offset handled", without a seek.
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../../logger.js';
import type { InRecord, SourceHandlers } from '../port.js';

const MAX_BATCH = 5_000;
const PAUSE_AT = 20_000;
const RESUME_AT = 5_000;
const RETRY_MIN_MS = 200;
const RETRY_MAX_MS = 5_000;

interface Feed {
  readonly topic: string;
  readonly partition: number;
  queue: InRecord[];
  held: boolean;
  running: Promise<void> | undefined;
  paused: boolean;
  failures: number;
}

export interface FlowControl {
  pause(topic: string, partition: number): void;
  resume(topic: string, partition: number): void;
  highWatermark(topic: string, partition: number): number | undefined;
}

const tp = (topic: string, partition: number) => `${topic}\t${partition}`;

export class Feeds {
  private readonly feeds = new Map<string, Feed>();
  /** Feeds with records and no batch running, oldest first. */
  private readonly ready = new Set<Feed>();
  private running = 0;
  private stopping = false;

  constructor(
    private readonly handlers: SourceHandlers,
    private readonly concurrency: number,
    private readonly flow: FlowControl,
    private readonly log: Logger,
  ) {}

  hold(topic: string, partition: number): void {
    const k = tp(topic, partition);
    const f = this.feeds.get(k);
    if (f !== undefined && f.held) return;
    this.feeds.set(k, { topic, partition, queue: [], held: true, running: f?.running, paused: false, failures: 0 });
  }

  /** Drops the partition's queue; its running batch sees isActive() false. Resolves once that batch has ended. */
  async release(topic: string, partition: number): Promise<void> {
    const f = this.feeds.get(tp(topic, partition));
    if (f === undefined) return;
    f.held = false;
    f.queue = [];
    this.ready.delete(f);
    this.feeds.delete(tp(topic, partition));
    await f.running;
  }

  add(topic: string, partition: number, records: InRecord[]): void {
    const f = this.feeds.get(tp(topic, partition));
    if (f === undefined || !f.held) return; // a partition lost since the fetch
    for (const r of records) f.queue.push(r);
    if (!f.paused && f.queue.length >= PAUSE_AT) {
      f.paused = true;
      this.flow.pause(topic, partition);
    }
    if (f.running === undefined) this.ready.add(f);
    this.pump();
  }

  /** No new batch starts; resolves once every running batch has ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.ready.clear();
    await Promise.all([...this.feeds.values()].map((f) => f.running));
  }

  private pump(): void {
    while (!this.stopping && this.running < this.concurrency && this.ready.size > 0) {
      const f = this.ready.values().next().value as Feed;
      this.ready.delete(f);
      this.running++;
      f.running = this.run(f).finally(() => {
        this.running--;
        f.running = undefined;
        if (f.held && f.queue.length > 0) this.ready.add(f);
        this.pump();
      });
    }
  }

  private async run(f: Feed): Promise<void> {
    const records = f.queue.splice(0, MAX_BATCH);
    if (f.paused && f.queue.length <= RESUME_AT) {
      f.paused = false;
      this.flow.resume(f.topic, f.partition);
    }
    const last = records.at(-1)!;
    const isActive = () => f.held && !this.stopping;
    const highWatermark = this.flow.highWatermark(f.topic, f.partition) ?? last.offset + 1;
    let done: number | undefined;
    try {
      done = await this.handlers.onBatch({ topic: f.topic, partition: f.partition, records, highWatermark, isActive });
      f.failures = 0;
    } catch (e) {
      if (!isActive()) return;
      f.failures++;
      const ms = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** (f.failures - 1)) * (0.5 + Math.random());
      this.log.warn({ err: (e as Error).message, topic: f.topic, partition: f.partition, retryInMs: Math.round(ms) }, 'batch failed; delivering it again');
      await delay(ms);
    }
    if (!isActive()) return;
    const rest = done === undefined ? records : records.filter((r) => r.offset > done);
    if (rest.length > 0) f.queue = rest.concat(f.queue);
  }
}
