#!/usr/bin/env node
// One `loopguard run` instance against a real broker and registry, next to a pass-through
// pipeline of each guarantee (same client, same port: consume → produce each record to two
// topics, no decoding, no processing) measured in the same run: the ceiling for this client on
// this machine. Each loopguard pipeline is compared with the pass-through of its guarantee.
//
//   npm run build && npm run stack:up && node bench/runtime.mjs [--events 60000] [--rate 1000] [--seconds 20] [--rounds 1] [--restore-keys 100000] [--json]
//   ... on `node scripts/stack.mjs up --secure --plaintext`: --pipelines atLeastOnce,atLeastOnceTls (TLS+SASL against plaintext)
//   ... [--only throughput,latency] [--variant before=bench/data/dist-before] [--node-arg --cpu-prof]
//
// Throughput: a backlog of pre-hashed tool events is produced first, then the stage starts;
// events/s = backlog / (time from the first output read to the last).
// Latency: events produced at a fixed rate with `ts` = the wall clock at send; latency =
// wall clock when the decision (or passed-through copy) is read − ts. p50/p90/p99; each round's
// line also splits it at the output record's Kafka timestamp (set by the stage's client when it
// builds the Produce request): event to that timestamp (fetch, fold, and for exactly-once the
// transaction's set-up), and that timestamp to read (the write, for exactly-once the commit and
// its markers, and the reader's fetch). The clock starts 3 s after the stage is ready, and the
// first --warm-seconds of traffic are reported apart: in a fresh process V8 has compiled none of
// the hot code yet and every client request is a first one, and those first seconds alone set
// the 20 s p99 of loopguard (the tenth round, in `git log -p bench/README.md`).
// Restore: `loopguard run` is started on empty topics and stopped, then restarted (time from
// spawn to /readyz 200 with nothing to restore: the baseline); --restore-keys runs get one tool
// call each, it stops, and a fresh one is timed from spawn to /readyz 200 while it restores
// one changelog entry per run.
// Every round runs the pipelines in a rotated order; --json prints every sample.
// --variant NAME=DIR adds `loopguard run` from another build (a copy of dist/ under this
// repository, so it resolves the same node_modules) as two more pipelines in the same rounds:
// what a change buys, side by side with the build before it.
/* global AbortSignal */
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { decisionCodec, toolEventCodec } from '../dist/schemas/codecs.js';
import { COMPATIBILITY, SchemaCatalog } from '../dist/schemas/registry.js';
import { buildTopology } from '../dist/topology/build.js';
import { configFrom } from '../dist/topology/config.js';
import { createLogger } from '../dist/topology/logger.js';
import { partitionFor } from '../dist/topology/partitioner.js';
import { connectKafka } from '../dist/topology/runtime/connect.js';
import { topicSpecs } from '../dist/topology/runtime/wiring.js';
import { hashedCall, worldConfig } from './lib/backlog.mjs';
import { cpuSampler } from './lib/cpu.mjs';

const HELP = `usage: node bench/runtime.mjs [options]     (needs npm run build, and a broker + registry:
KAFKA_BROKERS and SCHEMA_REGISTRY_URL, or .stack/env from npm run stack:up)

  --events N        throughput backlog (default 60000)
  --rate N          latency: events per second (default 1000)
  --seconds N       latency: how long (default 20)
  --warm-seconds N  latency: traffic at the same rate before those seconds, reported apart
                    as the first seconds after start (default 2; 0: none)
  --rounds N        rounds, pipelines rotated in each (default 1)
  --restore-keys N  restore: runs in the changelog (default 100000; 0 skips it)
  --only LIST       some of throughput, latency, restore (comma-separated; default all)
  --variant N=DIR   also run loopguard from DIR/cli/main.js (a copy of dist/ inside this
                    repository), as pipelines "N at-least-once" and "N exactly-once"; repeatable
  --pipelines LIST  only these pipelines, by key (passThrough, passThroughEos, atLeastOnce,
                    atLeastOnceTls, exactlyOnce, atLeastOnce@N, exactlyOnce@N; comma-separated;
                    default all). Each loopguard pipeline is compared with the pass-through of
                    its own guarantee (exactly-once with passThrough when passThroughEos did
                    not run). atLeastOnceTls runs only on a stack started with
                    \`node scripts/stack.mjs up --secure --plaintext\`: it reaches the broker over
                    TLS with SASL/SCRAM-SHA-512 as the processor user, every other pipeline over
                    the plaintext listener of the same broker, both with the same ACLs
  --node-arg ARG    pass ARG to node for every loopguard process (e.g. --cpu-prof); repeatable
  --client NAME     Kafka client of every pipeline, pass-through included: kafkajs or
                    librdkafka (default kafkajs)
  --json            print every sample as one JSON object instead of the summary
  -h, --help        show this text`;

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '60000' },
    rate: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '20' },
    'warm-seconds': { type: 'string', default: '2' },
    rounds: { type: 'string', default: '1' },
    'restore-keys': { type: 'string', default: '100000' },
    json: { type: 'boolean', default: false },
    only: { type: 'string', default: 'throughput,latency,restore' },
    variant: { type: 'string', multiple: true, default: [] },
    'node-arg': { type: 'string', multiple: true, default: [] },
    pipelines: { type: 'string' },
    client: { type: 'string', default: 'kafkajs' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  process.stdout.write(HELP + '\n');
  process.exit(0);
}
const whole = (name, min) => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < min) {
    process.stderr.write(`loopguard: runtime bench: --${name} must be a whole number of at least ${min}\n`);
    process.exit(2);
  }
  return n;
};
const EVENTS = whole('events', 1);
const RATE = whole('rate', 20);
const SECONDS = whole('seconds', 1);
const WARM_SECONDS = whole('warm-seconds', 0);
const ROUNDS = whole('rounds', 1);
const RESTORE_KEYS = whole('restore-keys', 0);
const PARTS = new Set(values.only.split(',').map((x) => x.trim()));
for (const part of PARTS) {
  if (!['throughput', 'latency', 'restore'].includes(part)) {
    process.stderr.write(`loopguard: runtime bench: --only takes throughput, latency, restore (got ${part})\n`);
    process.exit(2);
  }
}
const VARIANTS = values.variant.map((v) => {
  const at = v.indexOf('=');
  if (at < 1) {
    process.stderr.write(`loopguard: runtime bench: --variant takes NAME=DIR (got ${v})\n`);
    process.exit(2);
  }
  return { name: v.slice(0, at), main: join(v.slice(at + 1), 'cli/main.js') };
});
const NODE_ARGS = values['node-arg'];
if (!['kafkajs', 'librdkafka'].includes(values.client)) {
  process.stderr.write(`loopguard: runtime bench: --client takes kafkajs or librdkafka (got ${values.client})\n`);
  process.exit(2);
}
const CLIENT = values.client;
const PARTITIONS = 6;
const TICKS_PER_SECOND = 20;
const WAIT_MS = 600_000;

const envFile = (file) =>
  Object.fromEntries(
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
const env = process.env.KAFKA_BROKERS ? process.env : envFile(join(process.env.LOOPGUARD_STACK_DIR ?? '.stack', 'env'));
/**
 * A stack started with `up --secure --plaintext` has a PLAINTEXT listener too, whose clients
 * have the same ACLs as its `processor` user on `bench-…`: every pipeline runs on it, except
 * the TLS one (atLeastOnceTls), which runs on its SASL_SSL listener as `processor`.
 */
const SECURE = env.KAFKA_PLAINTEXT_BROKERS !== undefined;
const TLS_ENV = SECURE ? { ...env, ...envFile(join(process.env.LOOPGUARD_STACK_DIR ?? '.stack', 'users', 'processor.env')) } : undefined;
const PLAIN_ENV = SECURE ? { SCHEMA_REGISTRY_URL: env.SCHEMA_REGISTRY_URL, SCHEMA_REGISTRY_CA_FILE: env.SCHEMA_REGISTRY_CA_FILE, KAFKA_BROKERS: env.KAFKA_PLAINTEXT_BROKERS } : env;
/** This process's environment without the Kafka settings a world gives its `loopguard run`. */
const BASE_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(KAFKA_|SCHEMA_REGISTRY_)/.test(k)));
/**
 * The broker's pid when it is the one scripts/stack.mjs runs in LOOPGUARD_STACK_DIR (default
 * .stack) and this run uses it: its CPU is then reported apart. Undefined for any other broker.
 */
const BROKER_PID = (() => {
  const dir = process.env.LOOPGUARD_STACK_DIR ?? '.stack';
  try {
    const stackEnv = readFileSync(join(dir, 'env'), 'utf8');
    if (!stackEnv.includes(`KAFKA_BROKERS=${env.KAFKA_BROKERS}\n`) && !stackEnv.includes(`KAFKA_PLAINTEXT_BROKERS=${PLAIN_ENV.KAFKA_BROKERS}\n`)) return undefined;
    const pid = Number(readFileSync(join(dir, 'kafka.pid'), 'utf8').trim());
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
})();
const log = createLogger({ log: { level: 'warn', redact: true } }, 'bench');
const progress = (msg) => process.stderr.write(`runtime: ${msg}\n`);
const worlds = [];

function world(label, guarantee = 'at_least_once', port = 0, tls = false) {
  const name = `bench-${label}-${randomUUID().slice(0, 6)}`;
  // HTTP on a free loopback port: other processes on the machine may hold the default one.
  const raw = worldConfig(name, PARTITIONS, { processing: { guarantee }, http: { port, host: '127.0.0.1' }, kafka: { client: CLIENT } });
  const dir = mkdtempSync(join(tmpdir(), 'lg-bench-'));
  worlds.push(dir);
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(raw));
  const worldEnv = tls ? TLS_ENV : PLAIN_ENV;
  return { name, file, port, env: worldEnv, config: configFrom(raw, worldEnv) };
}

/** The first tool call of run `i` (one run per call: one changelog key each). */
const firstCall = (i) => ({
  type: 'tool_call',
  ts: 1_700_000_000_000 + i,
  sessionKey: `s${i}`,
  runId: `key-${i}`,
  toolCallId: `c${i}`,
  toolName: 'read',
  argsHash: `read:${createHash('sha256').update(String(i)).digest('hex')}`,
});

async function setup(w) {
  const kafka = connectKafka(w.config.settings, log, '-bench');
  const catalog = SchemaCatalog.connect(w.config.settings.schemaRegistry);
  const topology = buildTopology(w.config);
  await kafka.createTopics([...topicSpecs(w.config, topology), ...passthroughTopics(w).map((topic) => ({ topic, partitions: PARTITIONS, replicationFactor: 1 }))]);
  await catalog.register(w.config.topics.toolEvents, toolEventCodec, COMPATIBILITY.FULL_TRANSITIVE);
  await catalog.register(w.config.topics.verdicts, decisionCodec, COMPATIBILITY.FULL_TRANSITIVE);
  const sender = await kafka.producer();
  const record = (e) => ({
    topic: w.config.topics.toolEvents,
    partition: partitionFor(e.runId, PARTITIONS),
    key: e.runId,
    value: catalog.encode(w.config.topics.toolEvents, toolEventCodec, e),
  });
  const backlog = async (n, make) => {
    for (let i = 0; i < n; i += 1000) await sender.send(Array.from({ length: Math.min(1000, n - i) }, (_, k) => record(make(i + k))));
  };
  return { kafka, catalog, sender, record, backlog, topology };
}

/** Reads `topic` from the beginning; calls onValue(buffer, now) per record. */
async function reader(kafka, topic, onValue) {
  const c = kafka.groupConsumer(`${topic}-reader-${randomUUID()}`, { topics: [topic], fromBeginning: true });
  await c.run({
    onBatch: async (b) => {
      const now = Date.now();
      for (const r of b.records) await onValue(r.value, now, r);
      return b.records.at(-1)?.offset;
    },
  });
  return c;
}

/** Polls until `done()`; fails if `failed()` says why, or after WAIT_MS. */
async function waitUntil(what, done, failed = () => undefined) {
  const deadline = Date.now() + WAIT_MS;
  while (!done()) {
    const why = failed();
    if (why) throw new Error(`${what}: ${why}`);
    if (Date.now() > deadline) throw new Error(`${what}: not done after ${WAIT_MS / 1000} s`);
    await delay(20);
  }
}

function startLoopguard(w, { logs = false, main = 'dist/cli/main.js' } = {}) {
  const child = spawn(process.execPath, [...NODE_ARGS, main, 'run', '--config', w.file], {
    env: { ...BASE_ENV, ...w.env, LOG_LEVEL: logs ? 'info' : 'warn' },
    stdio: ['ignore', 'ignore', logs ? 'pipe' : 'inherit'],
  });
  let exited = null;
  let stderr = '';
  child.once('exit', (code, signal) => {
    exited = code ?? signal;
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  return {
    pid: child.pid,
    failed: () => (exited === null ? undefined : `loopguard run exited with ${exited}`),
    /** Date.now() once /readyz answers 200: the group is joined and every partition restored. */
    ready: async () => {
      const deadline = Date.now() + WAIT_MS;
      while (!(await isReady(w.port))) {
        const why = exited !== null ? `loopguard run exited with ${exited}` : Date.now() > deadline ? `not ready after ${WAIT_MS / 1000} s` : undefined;
        if (why) throw new Error(`waiting for /readyz: ${why}`);
        await delay(5);
      }
      return Date.now();
    },
    logLines: () =>
      stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l)),
    /**
     * When `topic`'s partitions had their state back, by loopguard's own log (needs `logs`):
     * its batches start then, though /readyz waits for every input topic's restore.
     */
    restoredAt: (topic) =>
      stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l))
        .find((l) => l.msg === 'state restored from changelog' && l.topic === topic)?.time,
    stop: async () => {
      if (exited === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await gone;
      }
    },
  };
}

/**
 * The pass-through: issue 31's pipeline on the port loopguard itself uses. Each input record
 * is produced twice, to two topics (1 in, 2 out), and the input offsets are committed per
 * batch; no decoding, no processing; as many partitions' batches at once as `loopguard run`
 * (6). At-least-once: the port's pooled idempotent sink. Exactly-once: one transactional sink
 * per input partition, as `loopguard run` opens them, each batch one transaction with its
 * offsets; the reader is read-committed (every reader here is).
 */
async function startPassthrough(w, kafka, exactlyOnce = false) {
  const out = passthroughTopics(w);
  const group = `${w.name}-pt`;
  const c = kafka.groupConsumer(group, { topics: [w.config.topics.toolEvents], fromBeginning: true, concurrency: PARTITIONS });
  const shared = exactlyOnce ? undefined : await c.sink(out);
  // Exactly-once: each partition's sink opened on its first batch.
  const transactional = new Map();
  const sinkFor = (b) => {
    if (shared !== undefined) return shared;
    if (!transactional.has(b.partition)) transactional.set(b.partition, c.transactionalSink(`${group}.${b.topic}.${b.partition}`, out));
    return transactional.get(b.partition);
  };
  await c.run({
    onBatch: async (b) => {
      const sink = await sinkFor(b);
      const copies = b.records.flatMap((r) => out.map((topic) => ({ topic, partition: r.partition, key: r.key, value: r.value })));
      const batch = sink.begin();
      batch.write([copies]);
      await batch.commit({ topic: b.topic, partition: b.partition, nextOffset: b.records.at(-1).offset + 1 });
      return b.records.at(-1).offset;
    },
  });
  const readyAt = Date.now(); // run() resolves once the group is joined
  return { stop: () => c.stop(), failed: () => undefined, ready: async () => readyAt };
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function throughput(p) {
  const w = world(p.label, p.guarantee, await freePort(), p.tls);
  const s = await setup(w);
  await s.backlog(EVENTS, (i) => hashedCall(i, 1_700_000_000_000 + i));
  let seen = 0;
  let first = 0;
  let last = 0;
  // The reader is in its group before the stage starts, so no output waits for it.
  const r = await reader(s.kafka, p.output(w), async (v, now) => {
    await p.tsOf(s.catalog, v);
    if (seen++ === 0) first = now;
    last = now;
  });
  let stage;
  const cpu = cpuSampler(() => ({ broker: BROKER_PID, stage: stage?.pid }), 25);
  stage = await p.start(w, s.kafka);
  const readyAt = await stage.ready();
  await waitUntil(`${p.label} throughput`, () => seen >= EVENTS, stage.failed);
  cpu.stop();
  const restoredAt = stage.restoredAt?.(w.config.topics.toolEvents) ?? readyAt;
  // Two rates, both without start-up (process, schema registration, group join, restore).
  // From the first output to the last leaves out the first batch's processing too, which
  // favours a stage that emits in large bursts; from ready to the last output does not.
  // "Ready" is when the input topic's partitions are restored: /readyz turns 200 once every
  // input topic's are, and the backlog's topic is processed meanwhile (the channel topic's
  // restore, exactly-once with its producers' fences, ended 0.3 s and once 3.7 s later).
  const fromReady = EVENTS / ((last - Math.min(readyAt, restoredAt)) / 1000);
  const rate = (EVENTS - 1) / ((last - first) / 1000);
  await r.stop();
  await stage.stop();
  const changelog = s.topology.nodes.find((n) => n.inputTopic === w.config.topics.toolEvents).store.changelogTopic;
  const changelogRecords = [...(await s.kafka.watermarks(changelog)).values()].reduce((n, m) => n + m.high - m.low, 0);
  await s.sender.close();
  await s.kafka.close();
  // CPU in the same window, per event: the machine's, and the broker's, loopguard's and this
  // process's (the reader, and the pass-through itself) apart.
  const spent = cpu.between(Math.min(readyAt, restoredAt), last);
  const perEvent = Object.fromEntries(Object.entries(spent).flatMap(([k, ms]) => (k === 'ms' || ms === undefined ? [] : [[k, Math.round((ms * 1000) / EVENTS)]])));
  const cores = spent.machine === undefined ? undefined : Number((spent.machine / spent.ms).toFixed(2));
  return { rate, fromReady, changelogRecords, readyLagMs: readyAt - Math.min(readyAt, restoredAt), cpuUsPerEvent: perEvent, busyCores: cores };
}

async function latency(p) {
  const w = world(`${p.label}l`, p.guarantee, await freePort(), p.tls);
  const s = await setup(w);
  const stage = await p.start(w, s.kafka);
  const samples = [];
  const r = await reader(s.kafka, p.output(w), async (v, now, rec) => {
    const ts = await p.tsOf(s.catalog, v);
    samples.push({ ts, lat: now - ts, inner: rec.timestamp - ts, outer: now - rec.timestamp });
  });
  await stage.ready();
  await delay(3000); // the stage's group settles before the clock starts
  // The first WARM_SECONDS of traffic are what a fresh process answers (V8 compiles hot code
  // as it goes, the client's first requests): reported apart from the steady figures.
  const warm = RATE * WARM_SECONDS;
  const total = warm + RATE * SECONDS;
  const perTick = Math.ceil(RATE / TICKS_PER_SECOND);
  const t0 = Date.now();
  const measuredFrom = t0 + WARM_SECONDS * 1000;
  for (let i = 0; i < total; i += perTick) {
    const due = t0 + (i / RATE) * 1000;
    if (due > Date.now()) await delay(due - Date.now());
    await s.sender.send(Array.from({ length: Math.min(perTick, total - i) }, (_, k) => s.record(hashedCall(i + k, Date.now()))));
  }
  await waitUntil(`${p.label} latency`, () => samples.length >= total, stage.failed);
  await r.stop();
  await stage.stop();
  await s.sender.close();
  await s.kafka.close();
  const cold = samples.filter((x) => x.ts < measuredFrom);
  const steady = samples.filter((x) => x.ts >= measuredFrom);
  const of = (xs, k) => xs.map((x) => x[k]);
  return {
    p50: pct(of(steady, 'lat'), 50),
    p90: pct(of(steady, 'lat'), 90),
    p99: pct(of(steady, 'lat'), 99),
    inP50: pct(of(steady, 'inner'), 50),
    inP99: pct(of(steady, 'inner'), 99),
    outP50: pct(of(steady, 'outer'), 50),
    outP99: pct(of(steady, 'outer'), 99),
    cold: cold.length === 0 ? undefined : { events: cold.length, p50: pct(of(cold, 'lat'), 50), p99: pct(of(cold, 'lat'), 99), max: Math.max(...of(cold, 'lat')) },
  };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const isReady = (port) =>
  fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1000) }).then(
    (r) => r.status === 200,
    () => false,
  );

/** Spawns `loopguard run` and times it from spawn to the first /readyz 200. */
async function timeToReady(w) {
  const started = performance.now();
  const lg = startLoopguard(w, { logs: true });
  await lg.ready();
  return { ms: performance.now() - started, lg };
}

async function restore() {
  const w = world('restore', 'at_least_once', await freePort());
  const s = await setup(w);
  const changelog = s.topology.nodes.find((n) => n.inputTopic === w.config.topics.toolEvents).store.changelogTopic;
  // The first start registers subjects and creates the group; the baseline is a restart with
  // nothing to restore, like the restart that restores.
  const first = await timeToReady(w);
  await first.lg.stop();
  const empty = await timeToReady(w);
  let decided = 0;
  const r = await reader(s.kafka, w.config.topics.verdicts, () => {
    decided++;
  });
  await s.backlog(RESTORE_KEYS, firstCall);
  await waitUntil('decisions for the restore keys', () => decided >= RESTORE_KEYS, empty.lg.failed);
  await r.stop();
  await empty.lg.stop();
  const written = [...(await s.kafka.watermarks(changelog)).values()].reduce((n, m) => n + m.high - m.low, 0);
  const full = await timeToReady(w);
  const restored = full.lg.logLines().filter((l) => l.msg === 'state restored from changelog' && l.topic === w.config.topics.toolEvents);
  await full.lg.stop();
  await s.sender.close();
  await s.kafka.close();
  return {
    keys: RESTORE_KEYS,
    changelogRecords: written,
    firstStartMs: first.ms,
    emptyMs: empty.ms,
    restoreMs: full.ms,
    restoredRecords: restored.reduce((n, l) => n + l.records, 0),
    restoreLogMs: Math.max(0, ...restored.map((l) => l.ms)),
  };
}

const verdicts = (w) => w.config.topics.verdicts;
const passthroughTopics = (w) => [`${w.name}.passthrough`, `${w.name}.passthrough2`];
const passthrough = (w) => passthroughTopics(w)[0];
const decisionTs = async (catalog, v) => Number((await catalog.decode(v, decisionCodec)).ts);
const eventTs = async (catalog, v) => Number((await catalog.decode(v, toolEventCodec)).ts);

const PIPELINES = [
  { key: 'passThrough', label: 'pt', name: 'pass-through, at_least_once', start: (w, kafka) => startPassthrough(w, kafka), output: passthrough, tsOf: eventTs },
  {
    key: 'passThroughEos',
    label: 'pteos',
    name: 'pass-through, exactly_once',
    guarantee: 'exactly_once',
    start: (w, kafka) => startPassthrough(w, kafka, true),
    output: passthrough,
    tsOf: eventTs,
  },
  {
    key: 'atLeastOnce',
    label: 'alo',
    name: 'loopguard run, at_least_once',
    guarantee: 'at_least_once',
    start: (w) => startLoopguard(w, { logs: true }),
    output: verdicts,
    tsOf: decisionTs,
  },
  {
    key: 'atLeastOnceTls',
    label: 'alotls',
    name: 'loopguard run, at_least_once, TLS+SASL',
    guarantee: 'at_least_once',
    tls: true,
    start: (w) => startLoopguard(w, { logs: true }),
    output: verdicts,
    tsOf: decisionTs,
  },
  {
    key: 'exactlyOnce',
    label: 'eos',
    name: 'loopguard run, exactly_once',
    guarantee: 'exactly_once',
    start: (w) => startLoopguard(w, { logs: true }),
    output: verdicts,
    tsOf: decisionTs,
  },
  ...VARIANTS.flatMap(({ name, main }) =>
    ['at_least_once', 'exactly_once'].map((guarantee) => ({
      key: `${guarantee === 'at_least_once' ? 'atLeastOnce' : 'exactlyOnce'}@${name}`,
      label: `${guarantee === 'at_least_once' ? 'alo' : 'eos'}-${name.replace(/[^a-z0-9]/gi, '')}`.slice(0, 24),
      name: `${name}, ${guarantee}`,
      guarantee,
      start: (w) => startLoopguard(w, { logs: true, main }),
      output: verdicts,
      tsOf: decisionTs,
    })),
  ),
];

const AVAILABLE = PIPELINES.filter((p) => !p.tls || SECURE);
const CHOSEN = values.pipelines === undefined ? AVAILABLE : AVAILABLE.filter((p) => values.pipelines.split(',').includes(p.key));
if (CHOSEN.length === 0) {
  process.stderr.write(`loopguard: runtime bench: no pipeline to run (atLeastOnceTls needs a stack started with \`node scripts/stack.mjs up --secure --plaintext\`)\n`);
  process.exit(2);
}

async function main() {
  const out = {
    node: process.version,
    partitions: PARTITIONS,
    events: EVENTS,
    rate: RATE,
    seconds: SECONDS,
    warmSeconds: WARM_SECONDS,
    rounds: ROUNDS,
    throughput: {},
    throughputFromReady: {},
    changelog: {},
    cpu: {},
    latency: {},
    restore: [],
  };
  for (const p of CHOSEN) {
    out.throughput[p.key] = [];
    out.throughputFromReady[p.key] = [];
    out.changelog[p.key] = [];
    out.cpu[p.key] = [];
    out.latency[p.key] = [];
  }
  for (let round = 0; round < ROUNDS; round++) {
    const order = CHOSEN.map((_, i) => CHOSEN[(i + round) % CHOSEN.length]);
    for (const p of PARTS.has('throughput') ? order : []) {
      const { rate, fromReady, changelogRecords, readyLagMs, cpuUsPerEvent, busyCores } = await throughput(p);
      out.throughput[p.key].push(rate);
      out.cpu[p.key].push({ usPerEvent: cpuUsPerEvent, busyCores });
      out.throughputFromReady[p.key].push(fromReady);
      out.changelog[p.key].push(changelogRecords);
      progress(
        `round ${round + 1} throughput ${p.name}: ${Math.round(rate)} events/s first to last output, ${Math.round(fromReady)} from ready (/readyz ${readyLagMs} ms later), ${changelogRecords} changelog records; ` +
          `CPU µs per event from ready ${Object.entries(cpuUsPerEvent)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')} (${busyCores} cores busy)`,
      );
    }
    for (const p of PARTS.has('latency') ? order : []) {
      const l = await latency(p);
      out.latency[p.key].push(l);
      progress(
        `round ${round + 1} latency at ${RATE}/s ${p.name}: p50 ${l.p50} ms, p90 ${l.p90} ms, p99 ${l.p99} ms (event to output record's timestamp p50 ${l.inP50} / p99 ${l.inP99} ms; that to read p50 ${l.outP50} / p99 ${l.outP99} ms)` +
          (l.cold ? `; first ${WARM_SECONDS} s after start: p50 ${l.cold.p50} ms, p99 ${l.cold.p99} ms, max ${l.cold.max} ms` : ''),
      );
    }
    if (RESTORE_KEYS > 0 && PARTS.has('restore')) {
      const r = await restore();
      out.restore.push(r);
      progress(
        `round ${round + 1} restore of ${r.keys} keys: ready in ${Math.round(r.restoreMs)} ms (restart with nothing to restore: ${Math.round(r.emptyMs)} ms, first start: ${Math.round(r.firstStartMs)} ms), ${r.restoredRecords} records restored in ${r.restoreLogMs} ms`,
      );
    }
  }
  if (values.json) {
    process.stdout.write(JSON.stringify(out) + '\n');
    return;
  }
  const med = (xs) => pct(xs, 50);
  console.log(
    `node ${process.version}, ${PARTITIONS} partitions, ${EVENTS} events backlog, latency at ${RATE} events/s for ${SECONDS} s after ${WARM_SECONDS} s of the same traffic, medians of ${ROUNDS}`,
  );
  // Each pipeline against the pass-through of its own guarantee when that one ran.
  const baselineOf = (p) => (p.guarantee === 'exactly_once' && out.throughput.passThroughEos ? 'passThroughEos' : 'passThrough');
  for (const p of CHOSEN) {
    const base = baselineOf(p);
    const pt = med(out.throughput[base] ?? []);
    const ptReady = med(out.throughputFromReady[base] ?? []);
    const ptP99 = med((out.latency[base] ?? []).map((x) => x.p99));
    const ptCold = med((out.latency[base] ?? []).flatMap((x) => (x.cold ? [x.cold.p99] : [])));
    const rate = med(out.throughput[p.key]);
    const ready = med(out.throughputFromReady[p.key]);
    const l = out.latency[p.key];
    const p99 = med(l.map((x) => x.p99));
    const cold = med(l.flatMap((x) => (x.cold ? [x.cold.p99] : [])));
    const of = base === 'passThroughEos' ? 'exactly-once pass-through' : 'pass-through';
    console.log(
      `${p.name.padEnd(36)} ${Math.round(rate).toLocaleString('en-US').padStart(8)} events/s (${(rate / pt).toFixed(2)} of ${of}; from ready ${Math.round(ready).toLocaleString('en-US')}, ${(ready / ptReady).toFixed(2)})   latency p50 ${med(l.map((x) => x.p50))} ms, p99 ${p99} ms (${(p99 / ptP99).toFixed(2)}× ${of})` +
        (WARM_SECONDS > 0 ? `; first ${WARM_SECONDS} s p99 ${cold} ms (${(cold / ptCold).toFixed(2)}×)` : ''),
    );
  }
  if (out.throughput.atLeastOnceTls && out.throughput.atLeastOnce) {
    const ratio = (k) => (med(out[k].atLeastOnceTls) / med(out[k].atLeastOnce)).toFixed(2);
    console.log(
      `at_least_once over TLS+SASL (SCRAM-SHA-512) / over plaintext, same broker and ACLs: ${ratio('throughput')} first to last output, ${ratio('throughputFromReady')} from ready`,
    );
  }
  if (out.restore.length > 0) {
    const r = out.restore;
    console.log(
      `restore of ${RESTORE_KEYS} keys: spawn to /readyz 200 in ${Math.round(med(r.map((x) => x.restoreMs)))} ms (restart with nothing to restore: ${Math.round(med(r.map((x) => x.emptyMs)))} ms)`,
    );
  }
}

try {
  await main();
} finally {
  for (const dir of worlds) rmSync(dir, { recursive: true, force: true });
}
