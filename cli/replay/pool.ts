// Parse workers for replay: chunks go out round-robin and come back in submission order, so
// the fold sees events exactly in input order and the output is byte for byte the serial one.
import { Worker } from 'node:worker_threads';
import type { ParsedLine } from './parse.js';

interface Pending {
  resolve(parsed: readonly ParsedLine[]): void;
  reject(error: Error): void;
}

export class ParsePool {
  private readonly workers: Worker[];
  private readonly pending = new Map<number, Pending>();
  private next = 0;

  constructor(size: number) {
    const url = new URL('./parseWorker.js', import.meta.url);
    this.workers = Array.from({ length: size }, () => {
      const w = new Worker(url);
      w.on('message', (m: { seq: number; parsed: readonly ParsedLine[] }) => {
        const p = this.pending.get(m.seq);
        this.pending.delete(m.seq);
        p?.resolve(m.parsed);
      });
      w.on('error', (e) => this.failAll(e));
      return w;
    });
  }

  /** Parses a chunk of whole lines on the next worker; settles with one result per line. */
  parse(chunk: Buffer): Promise<readonly ParsedLine[]> {
    const seq = this.next++;
    // A copy the worker owns: the read stream's buffers may share a pool.
    const owned = new Uint8Array(chunk);
    return new Promise((resolve, reject) => {
      this.pending.set(seq, { resolve, reject });
      this.workers[seq % this.workers.length]!.postMessage({ seq, chunk: owned }, [owned.buffer]);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private failAll(e: Error): void {
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }
}
