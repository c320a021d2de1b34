#!/usr/bin/env node
// One `loopguard run` instance against a real broker and registry, next to a pass-through
// pipeline (same client: consume → produce, no decoding, no processing) measured in the same
// run: the ceiling for this client on this machine.
//
//   npm run build && npm run stack:up && node bench/runtime.mjs [--events 60000] [--rate 500] [--seconds 20]
//
// Throughput: a backlog of pre-hashed tool events is produced first, then the stage starts;
// events/s = backlog / (time from the first output read to the last).
// Latency: events produced at a fixed rate with `ts` = the wall clock at send; latency =
// wall clock when the decision (or passed-through copy) is read − ts. p50/p99.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { decisionCodec, toolEventCodec } from '../dist/schemas/codecs.js';
import { COMPATIBILITY, SchemaCatalog } from '../dist/schemas/registry.js';
import { buildTopology } from '../dist/topology/build.js';
import { configFrom } from '../dist/topology/config.js';
import { createLogger } from '../dist/topology/logger.js';
import { partitionFor } from '../dist/topology/partitioner.js';
import { connectKafka } from '../dist/topology/runtime/kafkajs/index.js';
import { topicSpecs } from '../dist/topology/runtime/wiring.js';

const arg = (k, d) => { const i = process.argv.indexOf(`--${k}`); return i > 0 ? Number(process.argv[i + 1]) : d; };
const EVENTS = arg('events', 60_000);
const RATE = arg('rate', 500);
const SECONDS = arg('seconds', 20);
const PARTITIONS = 6;

const env = process.env.KAFKA_BROKERS ? process.env : Object.fromEntries(readFileSync('.stack/env', 'utf8').trim().split('\n').map((l) => l.split('=')));
const log = createLogger({ log: { level: 'warn', redact: true } }, 'bench');

function world(label, guarantee = 'at_least_once') {
  const name = `bench-${label}-${randomUUID().slice(0, 6)}`;
  const raw = { tools: { loopDetection: { enabled: true } }, loopguard: { topics: { toolEvents: `${name}.tool`, channelEvents: `${name}.chan`, verdicts: `${name}.verdicts`, deadLetter: `${name}.dlq`, changelogPrefix: `${name}.`, partitions: PARTITIONS }, consumer: { groupId: `${name}-g` }, processing: { guarantee } } };
  const file = join(mkdtempSync(join(tmpdir(), 'lg-bench-')), 'config.json');
  writeFileSync(file, JSON.stringify(raw));
  return { name, file, config: configFrom(raw, env) };
}

function hashedCall(i, ts) {
  const r = i % 2000;
  return { type: 'tool_call', ts, sessionKey: `s${r}`, runId: `run-${r}`, toolCallId: `c${i}`, toolName: 'read', argsHash: `read:${(r % 4 === 0 ? 0 : i).toString(16).padStart(64, '0')}` };
}

async function setup(w) {
  const kafka = connectKafka(w.config.settings, log, '-bench');
  const catalog = SchemaCatalog.connect(w.config.settings.schemaRegistry.url);
  const topology = buildTopology(w.config);
  await kafka.createTopics([...topicSpecs(w.config, topology), { topic: `${w.name}.passthrough`, partitions: PARTITIONS, replicationFactor: 1 }]);
  await catalog.register(w.config.topics.toolEvents, toolEventCodec, COMPATIBILITY.FULL_TRANSITIVE);
  await catalog.register(w.config.topics.verdicts, decisionCodec, COMPATIBILITY.FULL_TRANSITIVE);
  const sender = await kafka.producer();
  const record = (e) => ({ topic: w.config.topics.toolEvents, partition: partitionFor(e.runId, PARTITIONS), key: e.runId, value: catalog.encode(w.config.topics.toolEvents, toolEventCodec, e) });
  return { kafka, catalog, sender, record };
}

/** Reads `topic` from the beginning; calls onValue(buffer, now) per record. */
async function reader(kafka, topic, onValue) {
  const c = kafka.groupConsumer(`reader-${randomUUID()}`, { topics: [topic], fromBeginning: true });
  await c.run({ onBatch: async (b) => { const now = Date.now(); for (const r of b.records) await onValue(r.value, now); return b.records.at(-1)?.offset; } });
  return c;
}

function startLoopguard(w) {
  const child = spawn('node', ['dist/cli/main.js', 'run', '--config', w.file], { env: { ...process.env, ...env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'] });
  return { stop: async () => { child.kill('SIGTERM'); await new Promise((r) => child.once('exit', r)); } };
}

async function startPassthrough(w, kafka) {
  const c = kafka.groupConsumer(`${w.name}-pt`, { topics: [w.config.topics.toolEvents], fromBeginning: true });
  const sink = await c.sink();
  await c.run({ onBatch: async (b) => {
    const copies = b.records.map((r) => ({ topic: `${w.name}.passthrough`, partition: r.partition, key: r.key, value: r.value }));
    await sink.commit([copies], { topic: b.topic, partition: b.partition, nextOffset: b.records.at(-1).offset + 1 });
    return b.records.at(-1).offset;
  } });
  return { stop: () => c.stop() };
}

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]; };

async function throughput(label, start, outputTopic, decode, guarantee) {
  const w = world(label, guarantee);
  const s = await setup(w);
  for (let i = 0; i < EVENTS; i += 1000) await s.sender.send(Array.from({ length: Math.min(1000, EVENTS - i) }, (_, k) => s.record(hashedCall(i + k, 1_700_000_000_000 + i + k))));
  let seen = 0;
  let first = 0;
  let last = 0;
  const stage = await start(w, s.kafka);
  const r = await reader(s.kafka, outputTopic(w), async (v, now) => { if (decode) await decode(s.catalog, v); if (seen++ === 0) first = now; last = now; });
  while (seen < EVENTS) await delay(20);
  // From the first output to the last: start-up (process, schema registration, group join,
  // restore) is not part of the sustained rate.
  const rate = (EVENTS - 1) / ((last - first) / 1000);
  await r.stop(); await stage.stop(); await s.sender.close(); await s.kafka.close();
  return rate;
}

async function latency(label, start, outputTopic, tsOf, guarantee) {
  const w = world(label, guarantee);
  const s = await setup(w);
  const stage = await start(w, s.kafka);
  const lat = [];
  const r = await reader(s.kafka, outputTopic(w), async (v, now) => { lat.push(now - (await tsOf(s.catalog, v))); });
  await delay(3000); // the stage's group settles before the clock starts
  const total = RATE * SECONDS;
  const t0 = Date.now();
  for (let i = 0; i < total; i += RATE / 20) {
    const due = t0 + (i / RATE) * 1000;
    if (due > Date.now()) await delay(due - Date.now());
    await s.sender.send(Array.from({ length: RATE / 20 }, (_, k) => s.record(hashedCall(i + k, Date.now()))));
  }
  while (lat.length < total) await delay(20);
  await r.stop(); await stage.stop(); await s.sender.close(); await s.kafka.close();
  return { p50: pct(lat, 50), p99: pct(lat, 99) };
}

const verdicts = (w) => w.config.topics.verdicts;
const passthrough = (w) => `${w.name}.passthrough`;
const decisionTs = async (catalog, v) => Number((await catalog.decode(v, decisionCodec)).ts);
const eventTs = async (catalog, v) => Number((await catalog.decode(v, toolEventCodec)).ts);

console.log(`node ${process.version}, ${PARTITIONS} partitions, ${EVENTS} events backlog, latency at ${RATE} events/s for ${SECONDS} s`);
const ptRate = await throughput('pt', startPassthrough, passthrough, eventTs);
const ptLat = await latency('ptl', startPassthrough, passthrough, eventTs);
const rows = [['pass-through (consume → produce)', ptRate, ptLat]];
for (const guarantee of ['at_least_once', 'exactly_once']) {
  const rate = await throughput(`lg-${guarantee}`, (w) => startLoopguard(w), verdicts, decisionTs, guarantee);
  const lat = await latency(`lgl-${guarantee}`, (w) => startLoopguard(w), verdicts, decisionTs, guarantee);
  rows.push([`loopguard run, ${guarantee}`, rate, lat]);
}
for (const [label, rate, lat] of rows) {
  console.log(`${label.padEnd(36)} ${Math.round(rate).toLocaleString('en-US').padStart(8)} events/s (${(rate / ptRate).toFixed(2)} of pass-through)   latency p50 ${lat.p50} ms, p99 ${lat.p99} ms`);
}
