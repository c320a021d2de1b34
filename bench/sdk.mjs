#!/usr/bin/env node
// SDK round trip: `beforeToolCall` (publish tool_call → decision received) against one
// `loopguard run`, at a fixed moderate rate.
//
//   npm run build && npm run stack:up && node bench/sdk.mjs [--rate 100] [--seconds 20] [--guarantee at_least_once]
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { LoopguardRunner } from '../dist/sdk/index.js';
import { helpFromHeader } from './lib/help.mjs';

helpFromHeader(import.meta.filename);

const arg = (k, d) => {
  const i = process.argv.indexOf(`--${k}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const RATE = Number(arg('rate', 100));
const SECONDS = Number(arg('seconds', 20));
const GUARANTEE = arg('guarantee', 'at_least_once');
const env = process.env.KAFKA_BROKERS
  ? process.env
  : Object.fromEntries(
      readFileSync('.stack/env', 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split('=')),
    );
const name = `bench-sdk-${randomUUID().slice(0, 6)}`;
const topics = { toolEvents: `${name}.tool`, channelEvents: `${name}.chan`, verdicts: `${name}.verdicts`, deadLetter: `${name}.dlq`, changelogPrefix: `${name}.`, partitions: 6 };
const dir = mkdtempSync(join(tmpdir(), 'lg-sdk-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'config.json');
writeFileSync(
  file,
  JSON.stringify({
    tools: { loopDetection: { enabled: true } },
    loopguard: { topics, consumer: { groupId: `${name}-g` }, processing: { guarantee: GUARANTEE }, http: { port: 0 } },
  }),
);
const cli = (args, stdio = 'ignore') =>
  spawn('node', ['dist/cli/main.js', ...args, '--config', file], { env: { ...process.env, ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', stdio, 'pipe'] });

await new Promise((resolve, reject) => cli(['topics', 'create']).once('exit', (c) => (c === 0 ? resolve() : reject(new Error('topics create failed')))));
const run = cli(['run']);
let log = '';
run.stderr.on('data', (d) => {
  log += d;
});
while (!log.includes('state restored from changelog')) await delay(50);

const { partitions: _partitions, changelogPrefix, ...names } = topics;
const runner = await LoopguardRunner.connect({
  brokers: [env.KAFKA_BROKERS],
  schemaRegistryUrl: env.SCHEMA_REGISTRY_URL,
  topics: { ...names, changelogPrefix },
  failure: 'open',
  timeoutMs: 10_000,
});
// warm-up: one call per partition so every partition is followed before timing
for (let r = 0; r < 24; r++) await runner.beforeToolCall({ sessionKey: `warm-${r}`, toolName: 'read', args: { r } });

const rtts = [];
const inflight = [];
const total = RATE * SECONDS;
const t0 = performance.now();
for (let i = 0; i < total; i++) {
  const due = t0 + (i / RATE) * 1000;
  const wait = due - performance.now();
  if (wait > 0) await delay(wait);
  const started = performance.now();
  inflight.push(
    runner.beforeToolCall({ sessionKey: `s${i % 200}`, runId: `bench-run-${i % 200}`, toolName: 'read', args: { path: `/f${i % 7}` } }).then((v) => {
      if (v.answeredBy !== 'loopguard') throw new Error(`no decision in time (${v.answeredBy})`);
      rtts.push(performance.now() - started);
    }),
  );
}
await Promise.all(inflight);
await runner.close();
run.kill('SIGTERM');
await new Promise((r) => run.once('exit', r));
const sorted = rtts.sort((a, b) => a - b);
const p = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1);
console.log(`SDK round trip (${GUARANTEE}), ${total} calls at ${RATE}/s over 200 runs, 6 partitions: p50 ${p(0.5)} ms, p99 ${p(0.99)} ms, max ${sorted.at(-1).toFixed(1)} ms`);
