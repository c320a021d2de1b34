// Figure 5: the Kafka path (bench/runtime.mjs) on a broker and registry: the ones in
// KAFKA_BROKERS / SCHEMA_REGISTRY_URL, or a stack this run starts and stops itself
// (scripts/stack.mjs in LOOPGUARD_STACK_DIR, default .stack; one already running there is
// used and left running).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { median } from './proc.mjs';
import { ROOT } from './streams.mjs';
import { fmt, missing, row } from './table.mjs';

const STACK = join(ROOT, 'scripts/stack.mjs');
const stackDir = () => process.env.LOOPGUARD_STACK_DIR ?? join(ROOT, '.stack');
const envOf = (text) =>
  Object.fromEntries(
    text
      .trim()
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

/** { env, stop(), where } for a broker and registry, or { error }. */
export function broker(log) {
  if (process.env.KAFKA_BROKERS && process.env.SCHEMA_REGISTRY_URL) {
    return { env: {}, stop: () => {}, where: `KAFKA_BROKERS=${process.env.KAFKA_BROKERS}` };
  }
  const dir = stackDir();
  const running = spawnSync(process.execPath, [STACK, 'status'], { stdio: 'ignore' }).status === 0 && existsSync(join(dir, 'env'));
  if (running) return { env: envOf(readFileSync(join(dir, 'env'), 'utf8')), stop: () => {}, where: `the stack already running in ${dir}` };
  log(`starting a Kafka + registry stack in ${dir} (scripts/stack.mjs up)`);
  const up = spawnSync(process.execPath, [STACK, 'up'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (up.status !== 0) return { error: `scripts/stack.mjs up failed (exit ${up.status}); set KAFKA_BROKERS and SCHEMA_REGISTRY_URL to use another broker` };
  return {
    env: envOf(up.stdout),
    where: `a stack started for this run in ${dir}`,
    stop: () => {
      log('stopping the stack this run started');
      spawnSync(process.execPath, [STACK, 'down'], { stdio: 'inherit' });
    },
  };
}

function runtimeBench(args, env, log) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bench/runtime.mjs'), ...args, '--json'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
      for (const line of String(d).split('\n')) if (line.startsWith('runtime: ')) log(line.slice('runtime: '.length));
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`bench/runtime.mjs exited with ${code}: ${err.trim().split('\n').slice(-5).join('\n')}`)),
    );
  });
}

/** Issue 31's goals, per client: events/s of `run` as a share of the same client's pass-through. */
const GOALS = { librdkafka: { atLeastOnce: 0.5, exactlyOnce: 0.4 }, kafkajs: { atLeastOnce: 0.45 } };
/** librdkafka: loopguard's process at most this many times the pass-through's CPU per event. */
const CPU_GOAL = { librdkafka: 3 };
/** The pass-through each loopguard pipeline is compared with: the one of its own guarantee. */
const BASELINE = { atLeastOnce: 'passThrough', exactlyOnce: 'passThroughEos' };

/**
 * Where the machine's CPU went per event in the same window (from ready to the last output),
 * medians: loopguard's process, the broker, and the bench process (which reads the outputs, and
 * is the pass-through itself in its runs).
 */
function cpuNote(r, key) {
  const cpu = r.cpu?.[key];
  const pt = r.cpu?.[BASELINE[key]];
  if (!cpu?.length || !pt?.length) return undefined;
  const us = (runs, k) => median(runs.map((c) => c.usPerEvent[k]).filter((v) => v !== undefined));
  const part = (k, label) => (Number.isFinite(us(cpu, k)) ? `${label} ${us(cpu, k)}` : undefined);
  const parts = [part('stage', 'loopguard'), part('broker', 'broker'), part('bench', 'reader')].filter(Boolean).join(', ');
  const ptParts = [
    Number.isFinite(us(pt, 'bench')) ? `pass-through with reader ${us(pt, 'bench')}` : undefined,
    Number.isFinite(us(pt, 'broker')) ? `broker ${us(pt, 'broker')}` : undefined,
  ]
    .filter(Boolean)
    .join(', ');
  return `CPU µs per event: machine ${us(cpu, 'machine')} (${parts}; ${median(cpu.map((c) => c.busyCores))} cores busy) against the pass-through's ${us(pt, 'machine')} (${ptParts}; ${median(pt.map((c) => c.busyCores))} cores busy)`;
}
const P99_GOAL = 1.5;
const GUARANTEES = [
  ['atLeastOnce', 'at-least-once'],
  ['exactlyOnce', 'exactly-once'],
];
const RESTORE_GOAL_MS = 5000;

/**
 * Each client in `clients` against its own pass-through, one bench/runtime.mjs run per client,
 * one after the other on the same broker; the restore of 100k keys once, with the first client.
 */
export async function kafkaPath({ rounds, quick, clients }, log, cleanups) {
  const b = broker(log);
  const figures = ['throughput', 'p99', 'restore'];
  if (b.error) return figures.map((f) => missing(`Kafka path: ${f}`, '—', b.error));
  cleanups.push(b.stop);
  const rows = [];
  try {
    for (const [i, client] of clients.entries()) {
      const args = quick
        ? ['--events', '6000', '--rate', '1000', '--seconds', '5', '--restore-keys', i === 0 ? '10000' : '0']
        : ['--events', '300000', '--rate', '1000', '--seconds', '20', '--restore-keys', i === 0 ? '100000' : '0'];
      log(`Kafka path with ${client}`);
      const r = await runtimeBench([...args, '--rounds', String(rounds), '--client', client], b.env, log);
      rows.push(...clientRows(r, client, b.where));
    }
  } finally {
    cleanups.splice(cleanups.indexOf(b.stop), 1);
    b.stop();
  }
  return rows;
}

function clientRows(r, client, where) {
  const goals = GOALS[client] ?? {};
  const note = `on ${where}; ${r.partitions} partitions, pre-hashed tool calls; medians of ${r.rounds}`;
  const rows = [];
  // From ready to the last output: first-to-last leaves out the first batch (bench/README.md).
  for (const [key, label] of GUARANTEES)
    rows.push(
      row(`Kafka ${client}: pass-through ${label} (consume, produce each record to two topics), events/s of the backlog from ready`, {
        value: median(r.throughputFromReady[BASELINE[key]]),
        show: fmt.rate,
        note:
          key === 'atLeastOnce'
            ? 'the ceiling of this client on this machine: 1 record in, 2 out, offsets committed per batch, no decoding'
            : 'the same, each batch one transaction with its offsets, one transactional producer per input partition, read-committed reader',
      }),
    );
  const us = (key, k) => median((r.cpu?.[key] ?? []).map((c) => c.usPerEvent[k]).filter((v) => v !== undefined));
  // loopguard's own process against the pass-through's (which also reads the outputs).
  for (const [key, label] of GUARANTEES) {
    const stage = us(key, 'stage');
    const ptCpu = us(BASELINE[key], 'bench');
    if (Number.isFinite(stage) && Number.isFinite(ptCpu))
      rows.push(
        row(`Kafka ${client}: CPU µs per event, loopguard run ${label} (vs the ${label} pass-through's process)`, {
          value: stage,
          baseline: ptCpu,
          ratio: stage / ptCpu,
          show: (x) => (x === null ? '—' : `${Math.round(x)} µs`),
          goal: CPU_GOAL[client] === undefined ? '—' : `≤ ${CPU_GOAL[client]}×`,
          check: CPU_GOAL[client] === undefined ? undefined : (_, q) => q <= CPU_GOAL[client],
        }),
      );
  }
  for (const [key, label] of GUARANTEES) {
    const rate = median(r.throughputFromReady[key]);
    const pt = median(r.throughputFromReady[BASELINE[key]]);
    rows.push(
      row(`Kafka ${client}: loopguard run ${label}, events/s of a ${r.events.toLocaleString('en-US')} backlog from ready (vs same-client ${label} pass-through)`, {
        value: rate,
        baseline: pt,
        ratio: rate / pt,
        show: fmt.rate,
        goal: goals[key] === undefined ? '—' : `≥ ${goals[key]}`,
        check: goals[key] === undefined ? undefined : (_, q) => q >= goals[key],
        note: [key === 'atLeastOnce' ? note : undefined, cpuNote(r, key)].filter(Boolean).join('; '),
      }),
    );
  }
  for (const [key, label] of GUARANTEES) {
    const base = BASELINE[key];
    const p99 = median(r.latency[key].map((l) => l.p99));
    const p50 = median(r.latency[key].map((l) => l.p50));
    const ptP99 = median(r.latency[base].map((l) => l.p99));
    const after = r.warmSeconds > 0 ? `, after the first ${r.warmSeconds} s` : '';
    rows.push(
      row(`Kafka ${client}: p99 latency at ${r.rate.toLocaleString('en-US')} events/s${after}, ${label} (vs ${label} pass-through p99)`, {
        value: p99,
        baseline: ptP99,
        ratio: p99 / ptP99,
        show: fmt.ms,
        goal: `≤ ${P99_GOAL}×`,
        check: (_, q) => q <= P99_GOAL,
        note: `p50 ${p50} ms (pass-through ${median(r.latency[base].map((l) => l.p50))} ms), ${r.rate * r.seconds} events over ${r.seconds} s`,
      }),
    );
  }
  // The first seconds of traffic after a start, apart: no goal of their own, shown so that a
  // restart's cost is never hidden by the steady figure.
  const cold = (key) => median(r.latency[key].flatMap((l) => (l.cold ? [l.cold.p99] : [])));
  const slowest = (key) => median(r.latency[key].flatMap((l) => (l.cold ? [l.cold.max] : [])));
  if (r.warmSeconds > 0)
    for (const [key, label] of GUARANTEES) {
      const base = BASELINE[key];
      rows.push(
        row(`Kafka ${client}: p99 latency in the first ${r.warmSeconds} s of traffic after start, ${label} (vs ${label} pass-through)`, {
          value: cold(key),
          baseline: cold(base),
          ratio: cold(key) / cold(base),
          show: fmt.ms,
          note: `${r.rate * r.warmSeconds} events from 3 s after /readyz; slowest ${slowest(key)} ms (pass-through ${slowest(base)} ms)`,
        }),
      );
    }
  if (r.restore.length > 0) {
    const ms = median(r.restore.map((x) => x.restoreMs));
    const empty = median(r.restore.map((x) => x.emptyMs));
    const x = r.restore.at(-1);
    rows.push(
      row(`Kafka ${client}: restore of ${x.keys.toLocaleString('en-US')} keys, spawn to /readyz 200 (vs a restart with nothing to restore)`, {
        value: ms,
        baseline: empty,
        ratio: ms / empty,
        show: fmt.ms,
        goal: '≤ 5 s',
        check: (v) => v <= RESTORE_GOAL_MS,
        note: `at-least-once; ${x.changelogRecords.toLocaleString('en-US')} changelog records, ${x.restoredRecords.toLocaleString('en-US')} restored; the restore step itself ${median(r.restore.map((y) => y.restoreLogMs))} ms (its log line); the very first start, on new topics, ${Math.round(median(r.restore.map((y) => y.firstStartMs)))} ms`,
      }),
    );
  }
  return rows;
}
