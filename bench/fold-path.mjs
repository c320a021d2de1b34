#!/usr/bin/env node
// CPU per record of `loopguard run`'s fold path without a broker: the pre-hashed tool events of
// bench/runtime.mjs's throughput backlog, framed and Avro-encoded as a producer would, folded
// through the real PartitionWorker (decode, fold, decision and changelog encoding, telemetry)
// into a sink that accepts everything at once. The Kafka client's own work is left out, so this
// is the part of `run`'s CPU that loopguard's code owns.
//
//   npm run build && node bench/fold-path.mjs [--events 60000] [--batch 1000] [--rounds 5] [--variant base=bench/data/base/dist]
//                                             [--configs default,openclaw,openclaw-session] [--traffic hashed|raw]
//
// Every round runs each build in a fresh process, in alternated order; each process folds the
// backlog once to warm up and then --folds times measured (each fold with fresh tasks). Reported:
// CPU µs per record (process.cpuUsage around a fold, the least of a process's folds), medians over
// the rounds, and the ratio of each variant to the current build. Outputs are hashed, so a variant that writes other bytes
// shows it.
//
// --configs compares configs of the current build instead of builds: `default` (§2's rules),
// `openclaw` (the openclaw profile, docs/behaviour.md §6), `openclaw-session` (the profile,
// tool events keyed by session) and `early` (the early preset, §7). --traffic raw folds the standard traffic's raw events
// (bench/gen-stream.mjs: a call and its outcome, 1 KB args, 4 KB results), hashed in the fold
// path, instead of the pre-hashed call backlog.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { hashedCall, worldConfig } from './lib/backlog.mjs';
import { helpFromHeader } from './lib/help.mjs';

helpFromHeader(import.meta.filename);

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '60000' },
    batch: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '5' },
    folds: { type: 'string', default: '3' },
    variant: { type: 'string', multiple: true, default: [] },
    configs: { type: 'string' },
    traffic: { type: 'string', default: 'hashed' },
    setup: { type: 'string', default: 'default' },
    child: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const EVENTS = Number(values.events);
const BATCH = Number(values.batch);
const FOLDS = Number(values.folds);
const PARTITIONS = 6;

/** The loop-detection settings of each config --configs may name. */
const SETUPS = {
  default: [{ enabled: true }, {}],
  openclaw: [{ enabled: true, profile: 'openclaw' }, {}],
  'openclaw-session': [{ enabled: true, profile: 'openclaw' }, { keyToolEventsBy: 'session' }],
  early: [{ enabled: true, profile: 'early' }, {}],
};

/** The raw standard traffic, once per run of the bench, shared by its children. */
function rawTraffic() {
  const file = join(here, 'data', `fold-path-raw-${EVENTS}.jsonl`);
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    const runs = 2000;
    const out = execFileSync(process.execPath, [join(here, 'gen-stream.mjs'), '--runs', String(runs), '--calls', String(Math.ceil(EVENTS / runs / 2))], { maxBuffer: 2 ** 31 - 1 });
    writeFileSync(file, out);
  }
  return file;
}

async function child(dist) {
  const at = (p) => import(pathToFileURL(join(dist, p)).href);
  const { toolEventCodec, decisionCodec } = await at('schemas/codecs.js');
  const { SchemaCatalog } = await at('schemas/registry.js');
  const { buildTopology } = await at('topology/build.js');
  const { configFrom } = await at('topology/config.js');
  const { createLogger } = await at('topology/logger.js');
  const { partitionFor } = await at('topology/partitioner.js');
  const { PartitionTask } = await at('topology/task.js');
  const { PartitionWorker } = await at('topology/runtime/partitionWorker.js');
  const { PrometheusTelemetry } = await at('topology/runtime/telemetry.js');

  const [loopDetection, loopguard] = SETUPS[values.setup];
  const raw = worldConfig('fold', PARTITIONS, loopguard);
  raw.tools.loopDetection = loopDetection;
  const config = configFrom(raw, { KAFKA_BROKERS: 'localhost:9092', SCHEMA_REGISTRY_URL: 'http://localhost:8081' });
  const topology = buildTopology(config);
  const node = topology.nodeForTopic(config.topics.toolEvents);
  const types = new Map();
  const registry = { getSchema: async (id) => types.get(id) };
  const catalog = new SchemaCatalog(registry);
  let nextId = 1;
  const register = (topic, codec) => {
    const id = nextId++;
    types.set(id, codec.type);
    catalog.ids.set(`${topic}-value`, id);
  };
  register(config.topics.toolEvents, toolEventCodec);
  register(config.topics.verdicts, decisionCodec);
  register(node.store.changelogTopic, node.codecs.state);

  const byPartition = Array.from({ length: PARTITIONS }, () => []);
  const events =
    values.traffic === 'raw'
      ? readFileSync(rawTraffic(), 'utf8')
          .split('\n')
          .filter(Boolean)
          .slice(0, EVENTS)
          .map((l) => JSON.parse(l))
      : Array.from({ length: EVENTS }, (_, i) => hashedCall(i, 1_700_000_000_000 + i));
  for (const e of events) {
    const key = node.messageKeyOf(e);
    const p = partitionFor(key, PARTITIONS);
    const list = byPartition[p];
    list.push({
      topic: config.topics.toolEvents,
      partition: p,
      offset: list.length,
      key: Buffer.from(key),
      value: catalog.encode(config.topics.toolEvents, toolEventCodec, e),
      timestamp: Date.now(),
      headers: {},
    });
  }
  const log = createLogger({ log: { level: 'warn', redact: true } }, 'bench');

  const fold = async (hash) => {
    const telemetry = new PrometheusTelemetry();
    const workers = byPartition.map(
      (_, p) =>
        new PartitionWorker(
          new PartitionTask(node, p, { maxFutureSkewMs: topology.limits.maxFutureSkewMs, now: () => 1_700_000_000_000 }),
          catalog,
          topology.topics,
          1 << 20,
          log,
          telemetry,
        ),
    );
    const committed = new Map();
    let outputs = 0;
    const sink = {
      begin: () => ({
        write: (stages) => {
          for (const stage of stages)
            for (const r of stage) {
              outputs++;
              if (hash !== undefined) {
                hash.update(`${r.topic}\0${r.partition}\0${String(r.key)}\0`);
                hash.update(r.value ?? Buffer.alloc(0));
              }
            }
        },
        commit: async (pos) => void committed.set(pos.partition, pos.nextOffset),
        abandon: async () => undefined,
      }),
      committedOffset: (_t, p) => committed.get(p),
      close: async () => undefined,
    };
    for (let from = 0; ; from += BATCH) {
      let any = false;
      for (let p = 0; p < PARTITIONS; p++) {
        const records = byPartition[p].slice(from, from + BATCH);
        if (records.length === 0) continue;
        any = true;
        await workers[p].processBatch({ topic: config.topics.toolEvents, partition: p, records, highWatermark: byPartition[p].length, isActive: () => true }, sink);
      }
      if (!any) break;
    }
    return outputs;
  };

  const hash = createHash('sha256');
  const outputs = await fold(hash); // warm-up, readers resolved, outputs hashed
  // The least CPU of a few folds: another process on the machine only ever adds to it.
  let least = Infinity;
  for (let i = 0; i < FOLDS; i++) {
    const before = process.cpuUsage();
    await fold();
    const used = process.cpuUsage(before);
    least = Math.min(least, used.user + used.system);
  }
  process.stdout.write(JSON.stringify({ usPerRecord: least / EVENTS, outputs, sha: hash.digest('hex').slice(0, 16) }) + '\n');
}

if (values.child !== undefined) {
  await child(resolve(values.child));
} else {
  if (values.traffic === 'raw') rawTraffic();
  const builds =
    values.configs !== undefined
      ? values.configs.split(',').map((setup, i) => ({ name: i === 0 ? 'current' : setup, setup, dist: join(here, '../dist') }))
      : [
          { name: 'current', setup: 'default', dist: join(here, '../dist') },
          ...values.variant.map((v) => ({ name: v.slice(0, v.indexOf('=')), setup: 'default', dist: resolve(v.slice(v.indexOf('=') + 1)) })),
        ];
  for (const b of builds) if (!(b.setup in SETUPS)) throw new Error(`--configs: ${b.setup} is none of ${Object.keys(SETUPS).join(', ')}`);
  const samples = new Map(builds.map((b) => [b.name, []]));
  const shas = new Map(builds.map((b) => [b.name, new Set()]));
  for (let round = 0; round < Number(values.rounds); round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const b of order) {
      const args = ['--child', b.dist, '--events', String(EVENTS), '--batch', String(BATCH), '--folds', String(FOLDS), '--setup', b.setup, '--traffic', values.traffic];
      const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), ...args], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      if (r.status !== 0) throw new Error(`${b.name} exited with ${r.status}`);
      const s = JSON.parse(r.stdout.trim().split('\n').at(-1));
      samples.get(b.name).push(s.usPerRecord);
      shas.get(b.name).add(`${s.outputs} outputs, sha ${s.sha}`);
      process.stderr.write(`fold-path: round ${round + 1} ${b.name} ${s.usPerRecord.toFixed(2)} µs/record\n`);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const cur = median(samples.get('current'));
  if (values.json) console.log(JSON.stringify(Object.fromEntries(samples)));
  console.log(`node ${process.version}, ${EVENTS} ${values.traffic} events, batches of ${BATCH} per partition, ${values.rounds} rounds; CPU µs per record, median`);
  for (const b of builds) {
    const m = median(samples.get(b.name));
    console.log(
      `${(b.name === 'current' && values.configs !== undefined ? `current (${b.setup})` : b.name).padEnd(16)} ${m.toFixed(2).padStart(8)} µs  ×${(m / cur).toFixed(3)} of current  [${samples
        .get(b.name)
        .map((x) => x.toFixed(2))
        .join(' ')}]  ${[...shas.get(b.name)].join('; ')}`,
    );
  }
}
