import { Option, type Command } from 'commander';
import type { Context } from '../main.js';
import { configOption, positiveInt } from '../options.js';
import { openInput } from '../jsonLines.js';
import { progressBar } from '../progress.js';
import { replay } from './replay.js';

export function registerReplay(program: Command, ctx: Context): void {
  program
    .command('replay')
    .description('Replay JSON-lines events (SPEC §1) through the real topology in memory; one JSON decision per line on stdout, in input order.')
    .argument('[file]', 'events file, or - for stdin', '-')
    .addOption(configOption())
    .option('--skip-invalid', 'report invalid lines on stderr and continue (default: stop at the first)', false)
    .addOption(new Option('--partitions <n>', 'partitions to key events into (default: loopguard.topics.partitions), so ids and source positions match the Kafka runtime').argParser((v) => positiveInt(v, '--partitions')))
    .action(async (file: string, opts: { config?: string; skipInvalid: boolean; partitions?: number }) => {
      const config = ctx.config(opts);
      const log = ctx.logger(config, 'replay');
      const input = openInput(file);
      const stats = await replay(config, input.stream, process.stdout, {
        skipInvalid: opts.skipInvalid,
        partitions: opts.partitions ?? config.settings.topics.partitions,
      }, log, progressBar(input.size, 'replay'));
      log.info(stats, 'replay finished');
    });
}
