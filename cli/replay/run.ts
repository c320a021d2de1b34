// `loopguard replay`: JSON-lines events through the in-memory driver (the real topology), one
// JSON line per decision on stdout, in input order. With workers, parsing and hashing run on
// other threads in batches while this one folds, in input order: the output is the same bytes.
import type { Readable, Writable } from 'node:stream';
import { buildTopology } from '../../topology/build.js';
import type { ToolLoopConfig } from '../../processors/toolLoop/config.js';
import type { LoopguardConfig } from '../../topology/config.js';
import { ERROR_CODES, LoopguardError } from '../../topology/errors.js';
import { InMemoryDriver } from '../../topology/testing/driver.js';
import type { ProcessorNode, Topology } from '../../topology/topology.js';
import type { LazyLogger } from '../lazyLogger.js';
import type { Progress } from '../progress.js';
import { lineChunks, splitLines } from './batches.js';
import { routeLine, splitParsing, type ParsedLine } from './parse.js';
import type { ParsePool } from './pool.js';
import { Window } from './window.js';

export interface ReplayOptions {
  readonly skipInvalid: boolean;
  readonly partitions: number;
  /** Parse workers; 0 parses on this thread. Auto: that many if the input is raw (see RAW_LINE_BYTES), else 0. */
  readonly workers: number | Auto;
  /** Each parse worker's old-generation cap, MB (default WORKER_OLD_SPACE_MB). */
  readonly workerHeapMb?: number;
}

export interface Auto {
  readonly auto: number;
}

/** Lines this long on average carry raw arguments and results: hashing them outweighs handing them back. */
const RAW_LINE_BYTES = 1024;

export interface ReplayStats {
  events: number;
  decisions: number;
  invalid: number;
}

/** The first 1 MB is parsed on this thread: a small file does not wait for a worker to start. */
const WORKERS_FROM_BYTES = 1 << 20;

export async function replay(config: LoopguardConfig, input: Readable, output: Writable, opts: ReplayOptions, log: LazyLogger, progress?: Progress): Promise<ReplayStats> {
  const topology = buildTopology(config);
  const fold = new Fold(topology, new InMemoryDriver(topology, opts.partitions), opts.skipInvalid, log);
  const most = typeof opts.workers === 'number' ? opts.workers : opts.workers.auto;
  let pool: ParsePool | undefined;
  let window: Window | undefined;
  let seen = 0;
  const emit = async (text: string, bytes: number) => {
    await write(output, text);
    progress?.add(bytes);
  };
  // Folds what the window has ready, waiting while it is full; with `all`, everything in it.
  const drain = async (w: Window, all: boolean) => {
    for (let r = await w.next(all || w.full); r !== undefined; r = await w.next(all || w.full)) await emit(fold.parsed(r.parsed), r.bytes);
  };
  try {
    for await (const chunk of lineChunks(input)) {
      seen += chunk.length;
      if (pool === undefined && most > 0 && seen > WORKERS_FROM_BYTES && (typeof opts.workers === 'number' || seen / Math.max(1, fold.lineCount) >= RAW_LINE_BYTES)) {
        pool = await startPool(most, opts.workerHeapMb, config.toolLoop);
        splitParsing();
        // Chunks read ahead of the fold: enough 112 KB chunks that each thread has the next one.
        window = new Window(topology, pool, 4 + 4 * most, (e) =>
          log.warn({ reason: e.message }, 'a parse worker ran out of memory; parsing on this thread from here (the output is the same)'),
        );
        log.debug({ workers: most }, 'parse workers started');
      }
      if (window === undefined) await emit(fold.lines(splitLines(chunk)), chunk.length);
      else {
        window.add(chunk);
        await drain(window, false);
      }
    }
    if (window !== undefined) await drain(window, true);
  } catch (e) {
    // What was folded before the failure is written; the failure is reported after it.
    await write(output, fold.take());
    throw e;
  } finally {
    await pool?.close();
  }
  // A worker that failed before it was ready had no chunks; it is reported all the same.
  window?.settle();
  progress?.stop();
  return fold.stats;
}

async function startPool(size: number, heapMb: number | undefined, toolLoop: ToolLoopConfig): Promise<ParsePool> {
  const { ParsePool } = await import('./pool.js');
  return new ParsePool(size, heapMb, toolLoop);
}

/** The fold of parsed lines, in input order, into decision lines (JSON text). */
class Fold {
  readonly stats: ReplayStats = { events: 0, decisions: 0, invalid: 0 };
  private lineNo = 0;
  private out = '';

  /** Lines folded so far. */
  get lineCount(): number {
    return this.lineNo;
  }

  constructor(
    private readonly topology: Topology,
    private readonly driver: InMemoryDriver,
    private readonly skipInvalid: boolean,
    private readonly log: LazyLogger,
  ) {}

  /** Parses and folds lines on this thread, one at a time (each event is garbage before the next). */
  lines(texts: readonly string[]): string {
    for (let i = 0; i < texts.length; i++) {
      const at = ++this.lineNo;
      const r = routeLine(this.topology, texts[i]!);
      if (r === null) continue;
      if (r.ok) this.fold(r.node, r.event, at);
      else this.invalid(r.reason, at);
    }
    return this.take();
  }

  /** Folds lines a worker parsed. */
  parsed(results: readonly ParsedLine[]): string {
    for (let i = 0; i < results.length; i++) {
      const at = ++this.lineNo;
      const p = results[i]!;
      if (p === null) continue;
      if (p.ok) this.fold(this.topology.nodes[p.node]!, p.event, at);
      else this.invalid(p.reason, at);
    }
    return this.take();
  }

  /** The decision lines folded since the last call. */
  take(): string {
    const text = this.out;
    this.out = '';
    return text;
  }

  private fold(node: ProcessorNode, event: unknown, at: number): void {
    const r = this.driver.foldParsed(node, event);
    if (typeof r === 'string') return this.invalid(r, at);
    this.stats.events++;
    for (let j = 0; j < r.length; j++) this.out += JSON.stringify(r[j]) + '\n';
    this.stats.decisions += r.length;
  }

  private invalid(reason: string, at: number): void {
    this.stats.invalid++;
    if (!this.skipInvalid) throw new LoopguardError(ERROR_CODES.eventInvalid, `line ${at}: ${reason}`, { line: at });
    this.log.warn({ line: at, reason }, 'skipped invalid event');
  }
}

/** One write per batch, waiting while the consumer is behind (constant memory). */
async function write(output: Writable, text: string): Promise<void> {
  if (text.length === 0) return;
  if (!output.write(text)) await new Promise<void>((resolve) => output.once('drain', resolve));
}
