// `loopguard produce`: JSON-lines events to the right topic, key and partition, Avro-encoded.
import type { Command } from 'commander';
import { buildTopology } from '../../topology/build.js';
import { ERROR_CODES, LoopguardError } from '../../topology/errors.js';
import { connect } from '../connect.js';
import { openInput, readJsonLines } from '../jsonLines.js';
import type { Context } from '../context.js';
import { configOption } from '../options.js';
import { progressBar } from '../progress.js';
import { openPublisher } from '../publish.js';

export function registerProduce(program: Command, ctx: Context): void {
  program
    .command('produce')
    .description('Validate JSON-lines events (docs/behaviour.md §1) and publish each to its topic with its key and partition, Avro-encoded (Confluent wire format).')
    .argument('[file]', 'events file, or - for stdin', '-')
    .addOption(configOption())
    .option('--skip-invalid', 'report invalid lines on stderr and continue (default: stop at the first, after publishing the lines before it)', false)
    .action(async (file: string, opts: { config?: string; skipInvalid: boolean }) => {
      const config = ctx.config(opts);
      const log = ctx.logger(config, 'produce');
      const topology = buildTopology(config);
      const { kafka, catalog } = connect(config, log, '-produce');
      try {
        const publisher = await openPublisher(kafka, catalog, topology);
        const input = openInput(file);
        const progress = progressBar(input.size, 'produce');
        let sent = 0;
        let invalid = 0;
        try {
          for await (const line of readJsonLines(input.stream, progress.add)) {
            const reason = 'error' in line ? line.error : await publisher.add(line.value);
            if (reason === undefined) continue;
            invalid++;
            if (!opts.skipInvalid) throw new LoopguardError(ERROR_CODES.eventInvalid, `line ${line.lineNo}: ${reason}`, { line: line.lineNo });
            log.warn({ line: line.lineNo, reason }, 'skipped invalid event');
          }
        } finally {
          sent = await publisher.flush();
          await publisher.close();
          progress.stop();
          log.info({ sent, invalid }, 'produce finished');
        }
      } finally {
        await kafka.close();
      }
    });
}
