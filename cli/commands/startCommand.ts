// `loopguard start`: the guard in one command. With no broker configured it runs its own Kafka
// and schema registry (cli/start/embeddedStack.ts); then it creates the missing topics, runs the
// processor in the foreground with the console beside it, and reports until Ctrl-C, which
// stops exactly what it started, as every other ending does (cli/start/lifecycle.ts).
import type { Command } from 'commander';
import { buildTopology } from '../../topology/build.js';
import { embeddedStackDir, type LoopguardConfig } from '../../topology/config.js';
import { createLogger, type Logger } from '../../topology/logger.js';
import { StreamProcessor } from '../../topology/runtime/processor.js';
import { PrometheusTelemetry } from '../../topology/runtime/telemetry.js';
import { topicSpecs } from '../../topology/runtime/wiring.js';
import type { Topology } from '../../topology/topology.js';
import { connect } from '../connect.js';
import { followDecisions } from '../console/source.js';
import { serveConsole } from '../console/server.js';
import { ConsoleView, DEFAULT_VIEW } from '../console/view.js';
import type { Context } from '../context.js';
import { configOption } from '../options.js';
import { packageFile } from '../packageInfo.js';
import { openPublisher } from '../publish.js';
import { DemoProgress, demoFeed, type DemoFeed } from '../start/demoFeed.js';
import { ensureStack } from '../start/embeddedStack.js';
import { USUAL_PORTS } from '../start/ports.js';
import { Lifecycle } from '../start/lifecycle.js';
import { LiveStats } from '../start/liveStats.js';
import { loggedStatus, terminalStatus, type StatusOutput } from '../start/statusOutput.js';
import { DEFAULT_CONSOLE_PORT, portArg } from './consoleCommand.js';

interface StartOptions {
  readonly config?: string;
  readonly demo: boolean;
  readonly consolePort: number;
  readonly consoleHost: string;
  readonly metricsPort?: number;
  readonly kafkaPort?: number;
  readonly registryPort?: number;
  readonly maxEventBytes: number;
}

const STARTER = 'examples/config/starter.json5';
const STATUS_LOG_EVERY_MS = 10_000;

export function registerStart(program: Command, ctx: Context): void {
  program
    .command('start')
    .summary('run the guard in one command: embedded Kafka when none is configured, topics, processor, console')
    .description(
      'Run the guard in one command: with no broker configured (KAFKA_BROKERS or loopguard.kafka.brokers), start an embedded Kafka and schema registry (Java 17+ and Maven; cached in ~/.cache/loopguard/stack, or LOOPGUARD_STACK_DIR), create missing topics, and run the processor in the foreground with the console beside it. Without --config it runs examples/config/starter.json5 (tool-loop detection on). Ctrl-C stops the processor and whatever start started, as does every other way start ends (SIGTERM, SIGHUP, a closed stdout or stderr, an error); if start is killed outright, the embedded stack stops itself once start is gone.',
    )
    .addOption(configOption())
    .option('--demo', 'also feed the demo traffic through the broker and print its decisions as they come back', false)
    .option('--console-port <port>', 'port of the console (0: any free port)', portArg('--console-port'), DEFAULT_CONSOLE_PORT)
    .option('--console-host <address>', 'address the console listens on (it has no authentication)', '127.0.0.1')
    .option('--metrics-port <port>', 'port of /metrics, /healthz, /readyz (default: loopguard.http.port; 0: any free port)', portArg('--metrics-port'))
    .option('--kafka-port <port>', `port of the embedded Kafka (default ${USUAL_PORTS.kafka}, or a free one when that is taken; 0: any free port)`, portArg('--kafka-port'))
    .option(
      '--registry-port <port>',
      `port of the embedded schema registry (default ${USUAL_PORTS.registry}, or a free one when that is taken; 0: any free port)`,
      portArg('--registry-port'),
    )
    .option('--max-event-bytes <n>', 'events larger than this go to the dead-letter topic', (v) => Number(v), 1 << 20)
    .action((opts: StartOptions) => start(ctx, opts));
}

/**
 * Quieter on a terminal, where the status line says what info logs would. Written through
 * `out` either way: to process.stderr, whose write errors stop start (lifecycle.ts), where
 * pino's own stream would throw them at whatever logged.
 */
function startLogger(config: LoopguardConfig, out: StatusOutput, tty: boolean): Logger {
  const level = tty && config.settings.log.level === 'info' ? 'warn' : config.settings.log.level;
  return createLogger({ log: { ...config.settings.log, level } }, 'start', { write: (line: string) => out.log(line) });
}

const withKafka = (c: LoopguardConfig, brokers: readonly string[], registryUrl: string, metricsPort?: number): LoopguardConfig => ({
  ...c,
  settings: {
    ...c.settings,
    kafka: { ...c.settings.kafka, brokers: [...brokers] },
    schemaRegistry: { ...c.settings.schemaRegistry, url: registryUrl },
    http: { ...c.settings.http, port: metricsPort ?? c.settings.http.port },
  },
});

async function start(ctx: Context, opts: StartOptions): Promise<void> {
  const file = opts.config ?? packageFile(STARTER);
  let config = ctx.config({ config: file });
  const tty = process.stdout.isTTY === true;
  // Assigned once below; the status logger reads it late, after both exist.
  // eslint-disable-next-line prefer-const
  let log: Logger | undefined;
  const out = tty ? terminalStatus(process.stdout, process.stderr) : loggedStatus(process.stdout, process.stderr, () => log!, STATUS_LOG_EVERY_MS);
  log = startLogger(config, out, tty);
  const life = new Lifecycle(() => log!);
  const untrap = life.trapEndings();
  void life.stopRequested.then(() => out.print('stopping…'));
  try {
    out.print(
      `loopguard start: config ${file}${opts.config === undefined ? ' (the starter: both guards on, escalation, a shadow canary agent, slow bot loops; --config FILE runs yours)' : ''}`,
    );
    config = await brokerFor(config, opts, out, life, log);
    if (life.signal.aborted) return;
    const brokers = config.settings.kafka.brokers.join(',');
    const registry = config.settings.schemaRegistry.url;
    out.print('runners, dispatchers and `loopguard mcp-proxy` reach it with these two variables (the same addresses every time):');
    out.print(`KAFKA_BROKERS=${brokers}`);
    out.print(`SCHEMA_REGISTRY_URL=${registry}`);
    out.print(`in an MCP client's config: "env": ${JSON.stringify({ KAFKA_BROKERS: brokers, SCHEMA_REGISTRY_URL: registry })}`);
    await runGuard(config, opts, out, life, log);
  } finally {
    await life.stopAll();
    untrap();
  }
}

/** The config pointed at the configured broker, or at the embedded stack. */
async function brokerFor(config: LoopguardConfig, opts: StartOptions, out: StatusOutput, life: Lifecycle, log: Logger): Promise<LoopguardConfig> {
  if (config.brokersConfigured) return withKafka(config, config.settings.kafka.brokers, config.settings.schemaRegistry.url, opts.metricsPort);
  const dir = embeddedStackDir();
  out.print(`no broker configured: using the embedded Kafka and schema registry in ${dir}`);
  const stack = await ensureStack(dir, life.signal, { kafka: opts.kafkaPort, registry: opts.registryPort });
  life.onStop('embedded stack', () => stack.stop());
  for (const note of stack.notes) out.print(note);
  const down = `LOOPGUARD_STACK_DIR=${dir} node ${packageFile('scripts/stack.mjs')} down`;
  if (stack.started) out.print('embedded stack started; it stops with the guard, however the guard ends');
  else if (stack.leftBehind === null) out.print(`embedded stack already running there, for another loopguard start: reused, and left running`);
  else {
    out.print(`embedded stack already running there, ${stack.leftBehind}: reused, and left running (stop it with ${down})`);
    log.warn({ dir, owner: stack.leftBehind }, 'an embedded stack nobody owns is running');
  }
  return withKafka(config, stack.brokers.split(','), stack.registryUrl, opts.metricsPort);
}

async function runGuard(config: LoopguardConfig, opts: StartOptions, out: StatusOutput, life: Lifecycle, log: Logger): Promise<void> {
  const topology = buildTopology(config);
  const { kafka, catalog } = connect(config, log);
  life.onStop('kafka client', () => kafka.close());
  const specs = topicSpecs(config, topology);
  const created = await kafka.createTopics(specs);
  out.print(`topics: ${created.length} created, ${specs.length - created.length} already there`);

  const prometheus = new PrometheusTelemetry();
  const stats = new LiveStats(prometheus);
  const metrics = await prometheus.serve(config.settings.http.port, config.settings.http.host, log);
  life.onStop('metrics server', () => new Promise<void>((resolve) => metrics.close(() => resolve())));
  const metricsPort = (metrics.address() as { port: number }).port;

  const demo = opts.demo ? demoFeed(topology, config.settings.topics.partitions, Date.now().toString(36), Date.now()) : undefined;
  const progress = demo && new DemoProgress(demo);
  const view = new ConsoleView();
  const source = await followDecisions(config, log, DEFAULT_VIEW.windowMinutes * 60_000, (d) => {
    view.add(d);
    for (const line of progress?.onDecision(d) ?? []) out.print(line);
  });
  life.onStop('console source', () => source.stop());
  const page = await serveConsole(
    view,
    { port: opts.consolePort, host: opts.consoleHost, topic: config.topics.verdicts, status: () => stats.status(), portOption: '--console-port' },
    log,
  );
  life.onStop('console', () => page.close());
  out.print(`console: ${page.url}`);
  out.print(`metrics: http://${config.settings.http.host}:${metricsPort}/metrics (and /healthz, /readyz)`);

  const processor = new StreamProcessor(
    config,
    topology,
    kafka,
    catalog,
    log,
    { maxEventBytes: opts.maxEventBytes, registryAttempts: config.settings.schemaRegistry.startupAttempts },
    stats,
  );
  // A failure the client does not retry itself ends start non-zero, like `run`.
  processor.onFatal = (e) => {
    log.fatal({ err: e }, 'processor failed; stopping');
    process.exitCode = 1;
    life.requestStop('processor failed');
  };
  life.onStop('processor', () => processor.stop());
  const ticker = setInterval(() => out.update(stats.sample(Date.now())), 1000);
  life.onStop('status', () => {
    clearInterval(ticker);
    out.stop();
  });
  await processor.start();
  out.print('processor running; Ctrl-C stops it');
  if (demo) await feedDemo(config, topology, demo, out, log);
  await life.stopRequested;
}

async function feedDemo(config: LoopguardConfig, topology: Topology, demo: DemoFeed, out: StatusOutput, log: Logger): Promise<void> {
  const { kafka, catalog } = connect(config, log, '-demo');
  try {
    const publisher = await openPublisher(kafka, catalog, topology);
    for (const e of demo.events) {
      const reason = await publisher.add(e);
      if (reason !== undefined) throw new Error(`demo traffic is invalid: ${reason}`);
    }
    await publisher.flush();
  } finally {
    await kafka.close();
  }
  out.print(`demo: ${demo.events.length} events produced; ${demo.total} decisions expected back (the acting ones print as they come)`);
}
