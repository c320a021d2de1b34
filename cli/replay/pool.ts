// Parse workers for replay. Results come back on a port this thread reads synchronously
// (receiveMessageOnPort), so a thread busy folding and parsing picks them up, and feeds the
// worker again, without going back to the event loop; a shared counter wakes it when it has
// nothing else to do. Results are taken by sequence number, so the caller decides the order.
import { receiveMessageOnPort, MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { WORKER_OLD_SPACE_MB } from './limits.js';
import { Unpacker, type Packed } from './handover.js';
import type { ParsedLine } from './parse.js';
import { defaultToolLoopConfig, type ToolLoopConfig } from '../../processors/toolLoop/config.js';

/** How long one blocking wait for a result lasts before events (a worker's failure) are looked at. */
const WAIT_MS = 50;

/** Chunk buffers are at least this big (a file's reads are 112 KB, plus the line carried over). */
const MIN_BUFFER_BYTES = 128 << 10;

export class ParsePool {
  private readonly workers: Worker[];
  /** One results port per worker (a port goes to one thread). */
  private readonly results: MessagePort[] = [];
  /** One per worker: the shapes of what it packs. */
  private readonly unpackers: Unpacker[] = [];
  private readonly done = new Map<number, readonly ParsedLine[]>();
  /**
   * Chunk buffers the workers have handed back, reused for later chunks: a fresh copy per chunk
   * stayed allocated in the worker until its next GC, ~40 MB of dead chunks at a time.
   */
  private readonly spare: ArrayBuffer[] = [];
  /** Results posted so far, counted by the workers. */
  private readonly posted = new Int32Array(new SharedArrayBuffer(4));
  /** The first worker failure, once there is one: results it held will not come. */
  private failed: Error | undefined;
  private next = 0;
  private received = 0;
  /** Per worker: whether it said it is ready (loaded), and how many of its chunks are out. */
  private readonly ready: boolean[];
  private readonly out: number[];

  constructor(
    size: number,
    /** Each worker's old-generation cap. */
    heapMb: number = WORKER_OLD_SPACE_MB,
    /** The tool-loop config: the workers parse and hash for it, as the main topology's parser does. */
    toolLoop: ToolLoopConfig = defaultToolLoopConfig,
  ) {
    const url = new URL('./parseWorker.js', import.meta.url);
    this.ready = new Array<boolean>(size).fill(false);
    this.out = new Array<number>(size).fill(0);
    this.workers = Array.from({ length: size }, () => {
      const channel = new MessageChannel();
      this.results.push(channel.port1);
      this.unpackers.push(new Unpacker());
      const w = new Worker(url, {
        workerData: { results: channel.port2, posted: this.posted, toolLoop },
        transferList: [channel.port2],
        resourceLimits: { maxOldGenerationSizeMb: heapMb },
      });
      w.on('error', (e) => (this.failed ??= e));
      return w;
    });
  }

  get failure(): Error | undefined {
    return this.failed;
  }

  /** Chunks handed out whose results are not back yet. */
  get inFlight(): number {
    return this.next - this.received;
  }

  /**
   * Workers that have said they are ready. A worker takes 0.3-0.5 s to load on a busy machine;
   * chunks handed to it before then had the folding thread wait for it (bench/README.md).
   */
  get readyWorkers(): number {
    this.receive();
    let n = 0;
    for (const r of this.ready) if (r) n++;
    return n;
  }

  /** Hands a chunk of whole lines to the ready worker with the fewest out; its results are taken with `take`. */
  submit(chunk: Buffer): number {
    let w = -1;
    for (let i = 0; i < this.workers.length; i++) if (this.ready[i] && (w === -1 || this.out[i]! < this.out[w]!)) w = i;
    if (w === -1) throw new Error('no parse worker is ready');
    const seq = this.next++;
    // A copy the worker owns (the read stream's buffers may share a pool), in a spare buffer if one is big enough.
    const i = this.spare.findIndex((b) => b.byteLength >= chunk.length);
    const buffer = i >= 0 ? this.spare.splice(i, 1)[0]! : new ArrayBuffer(Math.max(chunk.length, MIN_BUFFER_BYTES));
    const owned = new Uint8Array(buffer, 0, chunk.length);
    owned.set(chunk);
    this.out[w]!++;
    this.workers[w]!.postMessage({ seq, chunk: owned }, [buffer]);
    return seq;
  }

  /** The chunk's results if they are back (one per line), without waiting. */
  poll(seq: number): readonly ParsedLine[] | undefined {
    this.receive();
    const parsed = this.done.get(seq);
    if (parsed !== undefined) this.done.delete(seq);
    return parsed;
  }

  /** Takes in what the workers have posted: results, and that they are ready. */
  private receive(): void {
    for (let w = 0; w < this.results.length; w++) {
      const port = this.results[w]!;
      for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) {
        const r = m.message as { ready: true } | { ready?: undefined; seq: number; packed: Packed; buffer: ArrayBuffer };
        if (r.ready === true) {
          this.ready[w] = true;
          continue;
        }
        this.done.set(r.seq, this.unpackers[w]!.unpack(r.packed));
        this.spare.push(r.buffer);
        this.received++;
        this.out[w]!--;
      }
    }
  }

  /** The chunk's results, waiting for them. */
  async take(seq: number): Promise<readonly ParsedLine[]> {
    for (;;) {
      const seen = Atomics.load(this.posted, 0);
      const parsed = this.poll(seq);
      if (parsed !== undefined) return parsed;
      if (this.failed !== undefined) throw this.failed;
      if (Atomics.wait(this.posted, 0, seen, WAIT_MS) === 'timed-out') await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async close(): Promise<void> {
    for (const port of this.results) port.close();
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
