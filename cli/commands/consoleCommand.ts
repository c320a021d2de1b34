// `loopguard console`: a web page of what the guard is doing now, read from the decision topic.
import { InvalidArgumentError, type Command } from 'commander';
import { followDecisions } from '../console/source.js';
import { serveConsole } from '../console/server.js';
import { ConsoleView, DEFAULT_VIEW } from '../console/view.js';
import type { Context } from '../context.js';
import { configOption } from '../options.js';

export const DEFAULT_CONSOLE_PORT = 9465;

export const portArg = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(`${name} must be a port number from 0 to 65535`);
  return n;
};

export function registerConsole(program: Command, ctx: Context): void {
  program
    .command('console')
    .summary('serve a web page of what the guard is doing now')
    .description(
      "Serve a web page of what the guard is doing now, from the decision topic (every instance's decisions): the warn / block / abort / suppress decisions as they come, the runs being warned or blocked, the bot pairs in cooldown, counts per detector and reason. Stops on SIGINT/SIGTERM.",
    )
    .addOption(configOption())
    .option('--port <port>', 'port to serve on (0: any free port)', portArg('--port'), DEFAULT_CONSOLE_PORT)
    .option('--host <address>', 'address to listen on (the page has no authentication: keep it on loopback unless something in front of it has)', '127.0.0.1')
    .option(
      '--lookback <minutes>',
      'start with the decisions of the last this many minutes',
      (v) => {
        const n = Number(v);
        if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('--lookback must be a non-negative number of minutes');
        return n;
      },
      DEFAULT_VIEW.windowMinutes,
    )
    .action(async (opts: { config?: string; port: number; host: string; lookback: number }) => {
      const config = ctx.config(opts);
      const log = ctx.logger(config, 'console');
      const view = new ConsoleView();
      const source = await followDecisions(config, log, opts.lookback * 60_000, (d) => view.add(d));
      const server = await serveConsole(view, { port: opts.port, host: opts.host, topic: config.topics.verdicts, portOption: '--port' }, log).catch(async (e: unknown) => {
        await source.stop();
        throw e;
      });
      process.stdout.write(`loopguard console: ${server.url} (decisions from ${config.topics.verdicts}; Ctrl-C stops it)\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
      await source.stop();
    });
}
