// `loopguard run`: the stream processor until SIGINT/SIGTERM, or until it fails.
import type { Command } from 'commander';
import { buildTopology } from '../../topology/build.js';
import { ERROR_CODES, LoopguardError } from '../../topology/errors.js';
import { redactUrls } from '../../topology/logger.js';
import { kafkaClientInUse } from '../../topology/runtime/connect.js';
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
      const { settings } = config;
      const topology = buildTopology(config);
      const client = kafkaClientInUse(settings);
      log.info({ topology: topology.describe(), brokers: settings.kafka.brokers, kafkaClient: client, registry: redactUrls(settings.schemaRegistry.url) }, 'starting');
      const telemetry = new PrometheusTelemetry();
      telemetry.kafkaClient(client);
      const server = await telemetry.serve(settings.http.port, settings.http.host, log).catch((e: Error) => {
        throw new LoopguardError(ERROR_CODES.configInvalid, `cannot serve metrics on ${settings.http.host}:${settings.http.port}: ${e.message}`, {}, false, { cause: e });
      });
      const { kafka, catalog } = connect(config, log);
      const processor = new StreamProcessor(
        config,
        topology,
        kafka,
        catalog,
        log,
        { maxEventBytes: opts.maxEventBytes, registryAttempts: settings.schemaRegistry.startupAttempts },
        telemetry,
      );
      let fatal: Error | undefined;
      const stopped = new Promise<void>((resolve) => {
        const stop = () =>
          processor.stop().then(resolve, (e) => {
            log.error({ err: e }, 'stop failed');
            process.exitCode = 1;
            resolve();
          });
        process.once('SIGINT', () => {
          log.info({ signal: 'SIGINT' }, 'signal received');
          void stop();
        });
        process.once('SIGTERM', () => {
          log.info({ signal: 'SIGTERM' }, 'signal received');
          void stop();
        });
        // A failure the client does not recover from itself ends the process non-zero: a
        // supervisor restarts it and the new instance resumes from the committed offsets and changelogs.
        processor.onFatal = (e) => {
          if (fatal !== undefined) return;
          fatal = e;
          log.fatal({ err: e }, 'processor failed; exiting');
          process.exitCode = 1;
          void stop();
        };
      });
      try {
        await processor.start();
      } catch (e) {
        // Nothing may outlive a failed start: the clients opened so far would keep the process up.
        await processor.stop().catch(() => undefined);
        server.close();
        throw e;
      }
      await stopped;
      server.close();
      if (fatal !== undefined) process.stderr.write(`loopguard: ${fatal.message.replace(/\s*\n\s*/g, ' ')}\n`);
      // Everything is committed and closed. Work given up on (a restore waiting on a registry
      // that hangs) may still hold a socket for a while; it must not hold the process.
      process.exit();
    });
}
