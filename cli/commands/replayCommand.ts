import { availableParallelism, loadavg } from 'node:os';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Context } from '../context.js';
import { configOption, intAtLeast, positiveInt } from '../options.js';
import { openInput } from '../jsonLines.js';
import { lazyLogger } from '../lazyLogger.js';
import { progressBar } from '../progress.js';
import { tuneReplayHeap } from '../replay/heap.js';
import { MIN_WORKER_HEAP_MB, WORKER_OLD_SPACE_MB } from '../replay/limits.js';

const workerHeap = intAtLeast(MIN_WORKER_HEAP_MB, 'a smaller heap cannot start a worker on Node 22 and later');
import { replay, type Auto } from './replay.js';

export function registerReplay(program: Command, ctx: Context): void {
  program
    .command('replay')
    .description('Replay JSON-lines events (docs/behaviour.md §1) through the real topology in memory; one JSON decision per line on stdout, in input order.')
    .argument('[file]', 'events file, or - for stdin', '-')
    .addOption(configOption())
    .option('--skip-invalid', 'report invalid lines on stderr and continue (default: stop at the first)', false)
    .addOption(
      new Option('--partitions <n>', 'partitions to key events into (default: loopguard.topics.partitions), so ids and source positions match the Kafka runtime').argParser((v) =>
        positiveInt(v, '--partitions'),
      ),
    )
    .addOption(
      new Option('--workers <n>', 'threads that parse and hash input while the main one folds (0: none); output is the same either way')
        .default(defaultWorkers(), 'for raw input (lines of 1 KB and more), one per idle core beyond this one by load average, at most 2; otherwise 0')
        .argParser((v) => nonNegativeInt(v, '--workers')),
    )
    .addOption(
      new Option(
        '--worker-heap <mb>',
        `old-generation cap of each parse worker, MB (at least ${MIN_WORKER_HEAP_MB}); a worker that reaches it hands its lines back to the main thread`,
      )
        .default(WORKER_OLD_SPACE_MB)
        .argParser((v) => workerHeap(v, '--worker-heap')),
    )
    .action(async (file: string, opts: { config?: string; skipInvalid: boolean; partitions?: number; workers: number | Auto; workerHeap: number }) => {
      const config = ctx.config(opts);
      tuneReplayHeap();
      const log = lazyLogger(config, () => ctx.logger(config, 'replay'));
      const input = openInput(file);
      const stats = await replay(
        config,
        input.stream,
        process.stdout,
        {
          skipInvalid: opts.skipInvalid,
          partitions: opts.partitions ?? config.settings.topics.partitions,
          workers: opts.workers,
          workerHeapMb: opts.workerHeap,
        },
        log,
        progressBar(input.size, 'replay'),
      );
      log.info(stats, 'replay finished');
    });
}

// Workers only pay on cores nobody else is using (on a busy machine they take turns with this
// thread and the hand-over costs more than it saves), and only for input whose parsing and
// hashing outweigh handing the parsed events back: raw tool events, not pre-hashed ones
// (measured in bench/README.md). The input's kind is judged by replay from its first 1 MB.
const defaultWorkers = (): Auto => {
  const cores = availableParallelism();
  const idle = cores - (loadavg()[0] ?? 0);
  return { auto: Math.min(2, cores - 1, Math.max(0, Math.floor(idle + 0.5))) };
};

function nonNegativeInt(v: string, name: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a whole number, got ${v}`);
  return n;
}
