#!/usr/bin/env node
// Every performance figure of issue 11 in one command, each measured next to its baseline in
// the same run (interleaved rounds, medians), printed as one table: figure, loopguard's value,
// the baseline's, their ratio, the goal, met or not. Nothing here is asserted by a test.
//
//   npm run build && npm run bench [-- --rounds 3] [-- --quick] [-- --only replay,memory]
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { kafkaPath } from './lib/kafka.mjs';
import { memoryPerRun } from './lib/memory.mjs';
import { canMeasureRss } from './lib/proc.mjs';
import { flatness, startup, throughput } from './lib/replay.mjs';
import { ROOT } from './lib/streams.mjs';
import { render } from './lib/table.mjs';

const SECTIONS = ['replay', 'memory', 'startup', 'kafka'];
const CLIENTS = ['kafkajs', 'librdkafka'];
/** The optional native client, when it was built at install time. */
const librdkafkaInstalled = existsSync(join(ROOT, 'dist/topology/runtime/librdkafka/native.js'))
  ? (await import('../dist/topology/runtime/librdkafka/native.js')).rdkafka !== undefined
  : false;
const DEFAULT_CLIENTS = librdkafkaInstalled ? CLIENTS : ['kafkajs'];

const HELP = `usage: npm run bench [-- options]        (node bench/run.mjs [options]; build first: npm run build)

Measures every figure of issue 11 against its baseline in the same run and prints one table
(figure, loopguard, baseline, ratio, goal, met). Progress goes to stderr, the table to stdout.

  replay   loopguard replay of the 200k standard stream, raw and pre-hashed, vs read +
           JSON.parse only with replay's reader (wall time incl. process start); replay's
           max RSS on the raw stream, and at 100k, 200k, 500k and 1M events (flatness), with
           runs scaled (live state grows) and with 1,000 runs of more calls (state bounded:
           the "flat" goal)
  startup  replay of a one-line file vs bare \`node -e 0\` (10 of each, interleaved)
  memory   heap per active run: 100k live runs of 2 calls, 20k of 30 (history full)
  kafka    bench/runtime.mjs, once per Kafka client (--clients): loopguard run at-least-once
           and exactly-once, each vs the same client's pass-through of that guarantee (each
           record in produced to two topics; throughput of a 300k backlog, CPU
           per event, p99 at 1,000 events/s, the first 2 s of that traffic after start apart),
           restore of 100k keys with the first client (~6 min); uses
           KAFKA_BROKERS + SCHEMA_REGISTRY_URL, or starts (and then stops) scripts/stack.mjs
           in LOOPGUARD_STACK_DIR (default .stack; needs java and mvn)

Input streams are generated into bench/data/ when missing: ~9 GB in all, each 1M-event raw
stream ~2.7 GB; with too little disk the flatness series uses 100-byte args and results, and
says so. A full run takes about an hour on 2 cores with both Kafka clients (about 20 minutes
of it is the rest).

options:
  --rounds N      rounds of each interleaved series; figures are medians (default 3; 1 with --quick)
  --quick         small sizes, for a smoke run (20k-event streams, 10k live runs, short Kafka runs)
  --only LIST     some of: ${SECTIONS.join(', ')} (comma-separated)
  --clients LIST  Kafka clients for the kafka section: ${CLIENTS.join(', ')} (comma-separated;
                  default both when @confluentinc/kafka-javascript is installed, else kafkajs)
  --json          print the rows as JSON instead of the table
  -h, --help      show this text`;

class UsageError extends Error {}

function options(argv) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        rounds: { type: 'string' },
        quick: { type: 'boolean', default: false },
        only: { type: 'string' },
        json: { type: 'boolean', default: false },
        clients: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (e) {
    throw new UsageError(`${e.message} (see --help)`);
  }
  if (values.help) return { help: true };
  const rounds = values.rounds === undefined ? (values.quick ? 1 : 3) : Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new UsageError(`--rounds must be a whole number of at least 1 (got ${JSON.stringify(values.rounds)})`);
  const only = values.only === undefined ? SECTIONS : values.only.split(',').map((s) => s.trim());
  const unknown = only.filter((s) => !SECTIONS.includes(s));
  if (unknown.length > 0) throw new UsageError(`--only takes ${SECTIONS.join(', ')} (got ${unknown.join(', ')})`);
  const clients = values.clients === undefined ? DEFAULT_CLIENTS : values.clients.split(',').map((s) => s.trim());
  const badClient = clients.filter((c) => !CLIENTS.includes(c));
  if (badClient.length > 0 || clients.length === 0) throw new UsageError(`--clients takes ${CLIENTS.join(', ')} (got ${values.clients})`);
  if (clients.includes('librdkafka') && !librdkafkaInstalled)
    throw new UsageError('--clients librdkafka: @confluentinc/kafka-javascript is not installed (see README, "Kafka client")');
  return { rounds, quick: values.quick, only: new Set(only), json: values.json, clients };
}

const log = (msg) => process.stderr.write(`bench: ${msg}\n`);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(', ');

async function main(argv) {
  const o = options(argv);
  if (o.help) return void process.stdout.write(HELP + '\n');
  if (!existsSync(join(ROOT, 'dist/cli/main.js'))) throw new UsageError('dist/ is missing: run `npm run build` first (the benchmarks measure the built CLI and modules)');
  if (!canMeasureRss) log('/usr/bin/time is missing: max RSS figures are left out');
  const cleanups = [];
  const stop = (signal) => {
    for (const c of cleanups) c();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const started = Date.now();
  const loadBefore = load();
  log(`node ${process.version}, ${o.rounds} round(s)${o.quick ? ', quick' : ''}; load average before: ${loadBefore}`);
  const rows = [];
  if (o.only.has('replay')) rows.push(...(await throughput(o, log)), ...(await flatness(o, log)));
  if (o.only.has('startup')) rows.push(...(await startup(o, log)));
  if (o.only.has('memory')) rows.push(...(await memoryPerRun(o, log)));
  if (o.only.has('kafka')) rows.push(...(await kafkaPath(o, log, cleanups)));
  const summary = `node ${process.version}; ${o.rounds} round(s)${o.quick ? ' (quick)' : ''}; load average (1, 5, 15 min) before ${loadBefore}, after ${load()}; ${Math.round((Date.now() - started) / 1000)} s`;
  if (o.json) process.stdout.write(JSON.stringify({ summary, rows }, null, 2) + '\n');
  else process.stdout.write(`${summary}\n\n${render(rows)}\n`);
}

main(process.argv.slice(2)).catch((e) => {
  if (!(e instanceof UsageError)) throw e;
  process.stderr.write(`loopguard: bench: ${e.message}\n`);
  process.exit(2);
});
