// `loopguard replay`: JSON-lines events through the in-memory driver (the real topology), one
// JSON line per decision on stdout, in input order. With workers, parsing and hashing run on
// other threads in batches while this one folds, in input order: the output is the same bytes.
import type { Readable, Writable } from 'node:stream';
import { buildTopology } from '../../topology/build.js';
import type { LoopguardConfig } from '../../topology/config.js';
import { ERROR_CODES, LoopguardError } from '../../topology/errors.js';
import type { Logger } from '../../topology/logger.js';
import { InMemoryDriver } from '../../topology/testing/driver.js';
import type { Progress } from '../progress.js';
import { lineChunks } from './batches.js';
import { parseChunk, type ParsedLine } from './parse.js';
import { ParsePool } from './pool.js';

export interface ReplayOptions {
  readonly skipInvalid: boolean;
  readonly partitions: number;
  /** Parse workers; 0 parses on this thread. */
  readonly workers: number;
}

export interface ReplayStats {
  events: number;
  decisions: number;
  invalid: number;
}

interface Parsing {
  readonly bytes: number;
  readonly parsed: readonly ParsedLine[] | Promise<readonly ParsedLine[]>;
}

export async function replay(config: LoopguardConfig, input: Readable, output: Writable, opts: ReplayOptions, log: Logger, progress?: Progress): Promise<ReplayStats> {
  const topology = buildTopology(config);
  const driver = new InMemoryDriver(topology, opts.partitions);
  const stats: ReplayStats = { events: 0, decisions: 0, invalid: 0 };
  const pool = opts.workers > 0 ? new ParsePool(opts.workers) : undefined;
  const ahead = Math.max(1, 2 * opts.workers);

  let lineNo = 0;
  const fold = async ({ bytes, parsed }: Parsing): Promise<void> => {
    const results = await parsed;
    const firstLineNo = lineNo + 1;
    lineNo += results.length;
    const lines: string[] = [];
    for (let i = 0; i < results.length; i++) {
      const p = results[i]!;
      if (p === null) continue;
      const r = p.ok ? driver.pipeParsed(topology.nodes[p.node]!, p.event) : p;
      if (!r.ok) {
        stats.invalid++;
        const at = firstLineNo + i;
        if (!opts.skipInvalid) {
          await write(output, lines);
          throw new LoopguardError(ERROR_CODES.eventInvalid, `line ${at}: ${r.reason}`, { line: at });
        }
        log.warn({ line: at, reason: r.reason }, 'skipped invalid event');
        continue;
      }
      stats.events++;
      for (const d of r.decisions) lines.push(JSON.stringify(d));
    }
    stats.decisions += lines.length;
    await write(output, lines);
    progress?.add(bytes);
  };

  const queue: Parsing[] = [];
  try {
    for await (const chunk of lineChunks(input)) {
      queue.push({ bytes: chunk.length, parsed: pool ? pool.parse(chunk) : parseChunk(topology, chunk) });
      if (queue.length >= ahead) await fold(queue.shift()!);
    }
    while (queue.length > 0) await fold(queue.shift()!);
  } finally {
    for (const q of queue) if (q.parsed instanceof Promise) q.parsed.catch(() => undefined);
    await pool?.close();
  }
  progress?.stop();
  return stats;
}

/** One write per batch, waiting while the consumer is behind (constant memory). */
async function write(output: Writable, lines: readonly string[]): Promise<void> {
  if (lines.length === 0) return;
  if (!output.write(lines.join('\n') + '\n')) await new Promise<void>((resolve) => output.once('drain', resolve));
}
