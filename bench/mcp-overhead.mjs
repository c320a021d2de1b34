#!/usr/bin/env node
// What `loopguard mcp-proxy` adds to a tool call: the round trip of a `tools/call` from the MCP
// SDK client through the proxy (which asks a running `loopguard run` first and publishes the
// outcome after) against the same call straight to the same server, interleaved one by one in
// the same run. The server is test/helpers/mcpCountingServer.mjs; the tool is `echo`, with a
// new argument each call so every call is allowed.
//
//   npm run build && npm run stack:up && node bench/mcp-overhead.mjs [--calls 500]
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { helpFromHeader } from './lib/help.mjs';

helpFromHeader(import.meta.filename);

const arg = (k, d) => {
  const i = process.argv.indexOf(`--${k}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const CALLS = Number(arg('calls', 500));
const WARMUP = 50;
const env = process.env.KAFKA_BROKERS
  ? process.env
  : Object.fromEntries(
      readFileSync('.stack/env', 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split('=')),
    );
const dir = mkdtempSync(join(tmpdir(), 'loopguard-mcp-bench-'));
const name = `bench-mcp-${randomUUID().slice(0, 6)}`;
const topics = { toolEvents: `${name}.tool`, channelEvents: `${name}.chan`, verdicts: `${name}.verdicts`, deadLetter: `${name}.dlq`, changelogPrefix: `${name}.`, partitions: 3 };
const config = join(dir, 'config.json');
writeFileSync(config, JSON.stringify({ tools: { loopDetection: { enabled: true } }, loopguard: { topics, consumer: { groupId: `${name}-g` }, http: { port: 0 } } }));
const childEnv = { ...process.env, ...env, LOG_LEVEL: 'warn' };
const cli = (args) => spawn('node', ['dist/cli/main.js', ...args, '--config', config], { env: { ...childEnv, LOG_LEVEL: 'info' }, stdio: ['ignore', 'ignore', 'pipe'] });

await new Promise((resolve, reject) => cli(['topics', 'create']).once('exit', (c) => (c === 0 ? resolve() : reject(new Error('topics create failed')))));
const run = cli(['run']);
let log = '';
run.stderr.on('data', (d) => {
  log += d;
});
while (!log.includes('state restored from changelog')) await delay(50);

const server = ['test/helpers/mcpCountingServer.mjs', join(dir, 'count.txt')];
async function client(command, args) {
  const c = new Client({ name: 'bench', version: '1.0.0' });
  await c.connect(new StdioClientTransport({ command, args, env: childEnv, stderr: 'ignore' }));
  return c;
}
const direct = await client('node', server);
const proxied = await client('node', ['dist/cli/main.js', 'mcp-proxy', '--config', config, '--failure', 'closed', '--timeout-ms', '10000', '--', 'node', ...server]);

const timings = { direct: [], proxied: [] };
async function timed(which, c, i) {
  const t = performance.now();
  const r = await c.callTool({ name: 'echo', arguments: { text: `call ${i}` } });
  const ms = performance.now() - t;
  if (r.isError || r.content.length !== 1) throw new Error(`${which} call ${i}: ${JSON.stringify(r)}`);
  if (i >= WARMUP) timings[which].push(ms);
}
for (let i = 0; i < WARMUP + CALLS; i++) {
  // Interleaved, alternating which goes first, so both see the same machine.
  const order = i % 2 === 0 ? ['direct', 'proxied'] : ['proxied', 'direct'];
  for (const which of order) await timed(which, which === 'direct' ? direct : proxied, i);
}
await direct.close();
await proxied.close();
run.kill('SIGTERM');
await new Promise((r) => run.once('exit', r));
rmSync(dir, { recursive: true, force: true });

const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const row = (label, xs) => `| ${label} | ${q(xs, 0.5).toFixed(2)} ms | ${q(xs, 0.99).toFixed(2)} ms | ${Math.max(...xs).toFixed(2)} ms |`;
console.log(`tools/call round trip, ${CALLS} calls each (after ${WARMUP} warm-up), interleaved, one at a time:\n`);
console.log('| path | p50 | p99 | max |\n|---|---:|---:|---:|');
console.log(row('straight to the server', timings.direct));
console.log(row('through `loopguard mcp-proxy`', timings.proxied));
console.log(
  `\nadded by the proxy: p50 ${(q(timings.proxied, 0.5) - q(timings.direct, 0.5)).toFixed(2)} ms, p99 ${(q(timings.proxied, 0.99) - q(timings.direct, 0.99)).toFixed(2)} ms`,
);
