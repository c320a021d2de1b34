// The chunks between reading and folding once parse workers run. Workers get the newest
// chunks, a few each in flight; while the oldest chunk (the next to fold) is still with a
// worker, this thread parses the oldest chunk nobody has taken, so both threads stay busy
// whatever the split of cost between parsing and folding, and however loaded the machine.
// Chunks are folded strictly oldest first: the output is the serial one byte for byte. A chunk
// too big for a worker's capped heap is always parsed here.
import type { Topology } from '../../topology/topology.js';
import { holdReplayHeap } from './heap.js';
import { parseChunk, type ParsedLine } from './parse.js';
import type { ParsePool } from './pool.js';

interface Slot {
  readonly bytes: number;
  /** Set until someone takes the chunk; dropped then, so only its parsed events are held. */
  chunk: Buffer | undefined;
  parsed: readonly ParsedLine[] | undefined;
  /** The worker's sequence number for the chunk, once a worker has it. */
  seq: number | undefined;
  /** The chunk while a worker has it (the worker parses a copy): parsed here if the worker fails. */
  sent: Buffer | undefined;
}

/**
 * Larger chunks (the read size is 112 KB, so these hold a line longer than ~150 KB) are parsed on
 * this thread, whose heap is not capped: a worker's is (`--worker-heap`, WORKER_OLD_SPACE_MB).
 */
export const MAX_WORKER_CHUNK_BYTES = 256 << 10;

/** A worker's failure replay survives (its capped heap, `--worker-heap`, was full): its chunks are parsed here. */
const outOfMemory = (e: unknown): boolean => (e as { code?: unknown } | null | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';

/** Chunks a worker holds at most: one it parses and some waiting, so it never idles. */
const IN_FLIGHT_PER_WORKER = 3;

export class Window {
  private readonly slots: Slot[] = [];
  /** Set once a worker ran out of memory: every chunk is parsed here from then on. */
  private workersLost = false;

  constructor(
    private readonly topology: Topology,
    private readonly pool: ParsePool,
    /** Chunks read ahead of the fold at most (bounds memory). */
    readonly size: number,
    /** Told once, when the workers are given up. */
    private readonly onWorkersLost: (e: Error) => void = () => {},
  ) {}

  get full(): boolean {
    return this.slots.length >= this.size;
  }

  get empty(): boolean {
    return this.slots.length === 0;
  }

  add(chunk: Buffer): void {
    this.slots.push({ bytes: chunk.length, chunk, parsed: undefined, seq: undefined, sent: undefined });
    this.feedWorkers();
  }

  /**
   * The oldest chunk's parsed lines and size, once they are there; until then this thread
   * parses later chunks. Without `wait`, undefined when only waiting on a worker is left.
   */
  async next(wait: boolean): Promise<{ readonly parsed: readonly ParsedLine[]; readonly bytes: number } | undefined> {
    holdReplayHeap();
    for (;;) {
      const head = this.slots[0];
      if (head === undefined) return undefined;
      if (!this.workersLost && this.pool.failure !== undefined) this.loseWorkers(this.pool.failure);
      if (head.parsed === undefined && head.seq === undefined) this.parseHere(head);
      if (head.parsed === undefined) this.received(head, this.pool.poll(head.seq!));
      this.feedWorkers();
      if (head.parsed !== undefined) {
        this.slots.shift();
        return { parsed: head.parsed, bytes: head.bytes };
      }
      const spare = this.slots.find((s) => s.chunk !== undefined);
      if (spare !== undefined) this.parseHere(spare);
      else if (!wait) return undefined;
      else {
        try {
          this.received(head, await this.pool.take(head.seq!));
        } catch (e) {
          this.loseWorkers(e);
        }
      }
    }
  }

  /**
   * Once the pool is closed (every worker has exited, so a failure has been told): a failure not
   * yet seen is handled as in `next`, though no chunk of the failed worker is left to parse.
   */
  settle(): void {
    if (!this.workersLost && this.pool.failure !== undefined) this.loseWorkers(this.pool.failure);
  }

  private parseHere(slot: Slot): void {
    slot.parsed = parseChunk(this.topology, slot.chunk!);
    slot.chunk = undefined;
  }

  private received(slot: Slot, parsed: readonly ParsedLine[] | undefined): void {
    if (parsed === undefined) return;
    slot.parsed = parsed;
    slot.sent = undefined;
  }

  /**
   * A worker that ran out of memory took its chunks with it: they go back to be parsed here, as
   * does everything after them (parsing is the same on every thread, so the output is too). Any
   * other failure is replay's.
   */
  private loseWorkers(e: unknown): void {
    if (!outOfMemory(e)) throw e;
    if (this.workersLost) return;
    this.workersLost = true;
    for (const s of this.slots) {
      if (s.parsed !== undefined || s.sent === undefined) continue;
      s.chunk = s.sent;
      s.sent = undefined;
      s.seq = undefined;
    }
    this.onWorkersLost(e as Error);
  }

  /** Hands the workers that are ready the newest chunks nobody has taken, up to their share in flight. */
  private feedWorkers(): void {
    if (this.workersLost) return;
    const most = IN_FLIGHT_PER_WORKER * this.pool.readyWorkers;
    for (let i = this.slots.length - 1; i >= 0 && this.pool.inFlight < most; i--) {
      const slot = this.slots[i]!;
      if (slot.chunk === undefined || slot.chunk.length > MAX_WORKER_CHUNK_BYTES) continue;
      slot.seq = this.pool.submit(slot.chunk);
      slot.sent = slot.chunk;
      slot.chunk = undefined;
    }
  }
}
