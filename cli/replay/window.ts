// The chunks between reading and folding once parse workers run. Workers get the newest
// chunks, a few each in flight; while the oldest chunk (the next to fold) is still with a
// worker, this thread parses the oldest chunk nobody has taken, so both threads stay busy
// whatever the split of cost between parsing and folding, and however loaded the machine.
// Chunks are folded strictly oldest first: the output is the serial one byte for byte.
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
}

/** Chunks a worker holds at most: one it parses and some waiting, so it never idles. */
const IN_FLIGHT_PER_WORKER = 3;

export class Window {
  private readonly slots: Slot[] = [];
  private readonly inFlightMax: number;

  constructor(
    private readonly topology: Topology,
    private readonly pool: ParsePool,
    workers: number,
    /** Chunks read ahead of the fold at most (bounds memory). */
    readonly size: number,
  ) {
    this.inFlightMax = IN_FLIGHT_PER_WORKER * workers;
  }

  get full(): boolean {
    return this.slots.length >= this.size;
  }

  get empty(): boolean {
    return this.slots.length === 0;
  }

  add(chunk: Buffer): void {
    this.slots.push({ bytes: chunk.length, chunk, parsed: undefined, seq: undefined });
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
      if (head.parsed === undefined && head.seq === undefined) this.parseHere(head);
      head.parsed ??= this.pool.poll(head.seq!);
      this.feedWorkers();
      if (head.parsed !== undefined) {
        this.slots.shift();
        return { parsed: head.parsed, bytes: head.bytes };
      }
      const spare = this.slots.find((s) => s.chunk !== undefined);
      if (spare !== undefined) this.parseHere(spare);
      else if (!wait) return undefined;
      else head.parsed = await this.pool.take(head.seq!);
    }
  }

  private parseHere(slot: Slot): void {
    slot.parsed = parseChunk(this.topology, slot.chunk!);
    slot.chunk = undefined;
  }

  /** Hands workers the newest chunks nobody has taken, up to their share in flight. */
  private feedWorkers(): void {
    for (let i = this.slots.length - 1; i >= 0 && this.pool.inFlight < this.inFlightMax; i--) {
      const slot = this.slots[i]!;
      if (slot.chunk === undefined) continue;
      slot.seq = this.pool.submit(slot.chunk);
      slot.chunk = undefined;
    }
  }
}
