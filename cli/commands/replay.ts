// `loopguard replay`: JSON-lines events through the in-memory driver (the real topology),
// one JSON line per decision on stdout, in input order.
import type { Readable, Writable } from 'node:stream';
import { buildTopology } from '../../topology/build.js';
import type { LoopguardConfig } from '../../topology/config.js';
import { ERROR_CODES, LoopguardError } from '../../topology/errors.js';
import type { Logger } from '../../topology/logger.js';
import { InMemoryDriver } from '../../topology/testing/driver.js';
import { LineWriter, readJsonLines } from '../jsonLines.js';
import type { Progress } from '../progress.js';

export interface ReplayOptions {
  readonly skipInvalid: boolean;
  readonly partitions: number;
}

export interface ReplayStats {
  events: number;
  decisions: number;
  invalid: number;
}

export async function replay(config: LoopguardConfig, input: Readable, output: Writable, opts: ReplayOptions, log: Logger, progress?: Progress): Promise<ReplayStats> {
  const driver = new InMemoryDriver(buildTopology(config), opts.partitions);
  const out = new LineWriter(output);
  const stats: ReplayStats = { events: 0, decisions: 0, invalid: 0 };
  for await (const line of readJsonLines(input, progress?.add)) {
    const result = 'error' in line ? { ok: false as const, reason: line.error } : driver.pipe(line.value);
    if (!result.ok) {
      stats.invalid++;
      if (!opts.skipInvalid) {
        await out.flush();
        throw new LoopguardError(ERROR_CODES.eventInvalid, `line ${line.lineNo}: ${result.reason}`, { line: line.lineNo });
      }
      log.warn({ line: line.lineNo, reason: result.reason }, 'skipped invalid event');
      continue;
    }
    stats.events++;
    for (const d of result.decisions) {
      stats.decisions++;
      await out.write(d);
    }
  }
  await out.flush();
  progress?.stop();
  return stats;
}
