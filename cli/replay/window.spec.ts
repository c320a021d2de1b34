// The Window hands workers the newest chunks and folds oldest first; a chunk too big for a
// worker's capped heap never goes to one. The pool here is a stand-in that records what it is
// given and parses it at once (the real pool, with threads, is covered by replay.spec.ts).
import { describe, expect, it } from 'vitest';
import { buildTopology } from '../../topology/build.js';
import { configFrom } from '../../topology/config.js';
import { parseChunk, type ParsedLine } from './parse.js';
import type { ParsePool } from './pool.js';
import { MAX_WORKER_CHUNK_BYTES, Window } from './window.js';

const topology = buildTopology(configFrom({}));
const call = (runId: string, pad = 0) => `{"type":"tool_call","ts":1700000000000,"runId":"${runId}","toolName":"read","args":{"p":"${'x'.repeat(pad)}"}}\n`;

/** Parses what it is given when asked for it; `submitted` holds each chunk's first run id. */
class FakePool {
  readonly submitted: string[] = [];
  private readonly results = new Map<number, readonly ParsedLine[]>();
  private seq = 0;
  /** Once set, no results come: the worker died with them. */
  failure: Error | undefined;
  /** Workers that said they are ready. */
  readyWorkers = 1;

  get inFlight(): number {
    return this.results.size;
  }

  submit(chunk: Buffer): number {
    this.submitted.push(runIdOf(parseChunk(topology, chunk)[0]));
    this.results.set(this.seq, parseChunk(topology, chunk));
    return this.seq++;
  }

  poll(seq: number): readonly ParsedLine[] | undefined {
    if (this.failure !== undefined) return undefined;
    const r = this.results.get(seq);
    this.results.delete(seq);
    return r;
  }

  take(seq: number): Promise<readonly ParsedLine[]> {
    return this.failure !== undefined ? Promise.reject(this.failure) : Promise.resolve(this.poll(seq)!);
  }
}

function runIdOf(line: ParsedLine | undefined): string {
  if (line === null || line === undefined || !line.ok) throw new Error('expected a parsed event');
  return (line.event as { runId: string }).runId;
}

const chunksOf = (ids: readonly string[]) => ids.map((id) => Buffer.from(call(id, 10) + call(`${id}-2`, 10)));

async function foldAll(window: Window): Promise<string[]> {
  const folded: string[] = [];
  for (let r = await window.next(true); r !== undefined; r = await window.next(true)) folded.push(...r.parsed.map(runIdOf));
  return folded;
}

const failure = (code: string) => Object.assign(new Error(code), { code });

describe('Window', () => {
  it('parses a chunk over MAX_WORKER_CHUNK_BYTES on this thread, and folds every chunk in input order', async () => {
    const pool = new FakePool();
    const window = new Window(topology, pool as unknown as ParsePool, 8);
    const chunks = ['a', 'b', 'big', 'c'].map((id) => Buffer.from(call(id, id === 'big' ? MAX_WORKER_CHUNK_BYTES : 10)));
    for (const c of chunks) window.add(c);
    const folded: string[] = [];
    for (let r = await window.next(true); r !== undefined; r = await window.next(true)) folded.push(runIdOf(r.parsed[0]));
    expect(folded).toEqual(['a', 'b', 'big', 'c']);
    expect(pool.submitted).not.toContain('big');
    expect(pool.submitted.length).toBeGreaterThan(0);
  });

  it('parses the chunks of a worker that ran out of memory here, and every later chunk, in input order', async () => {
    const pool = new FakePool();
    const lost: Error[] = [];
    const window = new Window(topology, pool as unknown as ParsePool, 8, (e) => lost.push(e));
    const [a, b, c, d] = chunksOf(['a', 'b', 'c', 'd']);
    window.add(a!);
    window.add(b!);
    pool.failure = failure('ERR_WORKER_OUT_OF_MEMORY');
    window.add(c!);
    window.add(d!);
    expect(await foldAll(window)).toEqual(['a', 'a-2', 'b', 'b-2', 'c', 'c-2', 'd', 'd-2']);
    expect(pool.submitted).toEqual(['a', 'b', 'c']);
    expect(lost.map((e) => e.message)).toEqual(['ERR_WORKER_OUT_OF_MEMORY']);
    window.add(Buffer.from(call('e', 10)));
    expect(await foldAll(window)).toEqual(['e']);
    expect(pool.submitted).toEqual(['a', 'b', 'c']);
  });

  it('hands no chunk to a worker before it is ready: they are parsed here, and later ones go to it once it is', async () => {
    const pool = new FakePool();
    pool.readyWorkers = 0;
    const window = new Window(topology, pool as unknown as ParsePool, 8);
    for (const chunk of chunksOf(['a', 'b', 'c'])) window.add(chunk);
    expect(await foldAll(window)).toEqual(['a', 'a-2', 'b', 'b-2', 'c', 'c-2']);
    expect(pool.submitted).toEqual([]);
    pool.readyWorkers = 1;
    for (const chunk of chunksOf(['d', 'e'])) window.add(chunk);
    expect(await foldAll(window)).toEqual(['d', 'd-2', 'e', 'e-2']);
    expect(pool.submitted.length).toBeGreaterThan(0);
  });

  it('fails on any other worker failure', async () => {
    const pool = new FakePool();
    const window = new Window(topology, pool as unknown as ParsePool, 8);
    for (const chunk of chunksOf(['a', 'b'])) window.add(chunk);
    pool.failure = failure('ERR_WORKER_INIT_FAILED');
    await expect(foldAll(window)).rejects.toThrow('ERR_WORKER_INIT_FAILED');
  });
});
