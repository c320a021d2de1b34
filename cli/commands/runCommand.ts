import type { Command } from 'commander';
import { buildTopology } from '../../topology/build.js';
import { StreamProcessor } from '../../topology/runtime/processor.js';
import { PrometheusTelemetry } from '../../topology/runtime/telemetry.js';
import { connect } from '../connect.js';
import type { Context } from '../context.js';
import { configOption, positiveInt } from '../options.js';

export function registerRun(program: Command, ctx: Context): void {
  program
    .command('run')
    .description('Run the stream processor: consume tool and channel events, publish decisions, keep state in compacted changelogs. Stops gracefully on SIGINT/SIGTERM.')
    .addOption(configOption())
    .option('--max-event-bytes <n>', 'events larger than this go to the dead-letter topic', (v) => positiveInt(v, '--max-event-bytes'), 1 << 20)
    .action(async (opts: { config?: string; maxEventBytes: number }) => {
      const config = ctx.config(opts);
      const log = ctx.logger(config, 'run');
      const topology = buildTopology(config);
      log.info({ topology: topology.describe(), brokers: config.settings.kafka.brokers, registry: config.settings.schemaRegistry.url }, 'starting');
      const { kafka, catalog } = connect(config, log);
      const telemetry = new PrometheusTelemetry();
      const server = await telemetry.serve(config.settings.http.port, config.settings.http.host, log);
      const processor = new StreamProcessor(config, topology, kafka, catalog, log, { maxEventBytes: opts.maxEventBytes, registryAttempts: config.settings.schemaRegistry.startupAttempts }, telemetry);
      const stopped = new Promise<void>((resolve) => {
        const stop = () => processor.stop().then(resolve, (e) => { log.error({ err: e }, 'stop failed'); process.exitCode = 1; resolve(); });
        process.once('SIGINT', () => { log.info({ signal: 'SIGINT' }, 'signal received'); void stop(); });
        process.once('SIGTERM', () => { log.info({ signal: 'SIGTERM' }, 'signal received'); void stop(); });
        // A failure the client does not retry itself ends the process non-zero: a supervisor
        // restarts it and the new instance resumes from the committed offsets and changelogs.
        processor.onFatal = (e) => { log.fatal({ err: e }, 'processor failed; exiting'); process.exitCode = 1; void stop(); };
      });
      try {
        await processor.start();
        await stopped;
      } finally {
        server.close();
      }
    });
}
