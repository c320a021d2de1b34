#!/usr/bin/env node
// Processor throughput on the standard benchmark traffic (bench/gen-stream.mjs).
//
//   npm run build && node bench/processors.mjs [--events 100000] [--iterations 5]
//
// Measures, on events already parsed from JSON (so only loopguard's own work is timed):
//   fold     the tool-loop Process alone (evolve + react per run), events validated beforehand
//   driver   validation + keying + partition task + the fold (what the runtime does per record)
// each for pre-hashed and for raw events (1 KB args, 4 KB results), and the bot-loop
// processor on a synthetic multi-pair storm.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { step } from '../dist/processors/kernel/process.js';
import { buildTopology } from '../dist/topology/build.js';
import { configFrom } from '../dist/topology/config.js';
import { InMemoryDriver } from '../dist/topology/testing/driver.js';
import { helpFromHeader } from './lib/help.mjs';

helpFromHeader(import.meta.filename);

const arg = (k, d) => {
  const i = process.argv.indexOf(`--${k}`);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const EVENTS = arg('events', 100_000);
const ITER = arg('iterations', 5);
const gen = resolve(import.meta.dirname, 'gen-stream.mjs');

function traffic(hashed) {
  const runs = 2000;
  const calls = Math.ceil(EVENTS / runs / 2);
  const out = execFileSync('node', [gen, '--runs', String(runs), '--calls', String(calls), ...(hashed ? ['--hashed'] : [])], { maxBuffer: 2 ** 31 - 1 }).toString();
  return out
    .split('\n')
    .filter(Boolean)
    .slice(0, EVENTS)
    .map((l) => JSON.parse(l));
}

function botTraffic() {
  const out = [];
  let ts = 1_700_000_000_000;
  for (let i = 0; i < EVENTS; i++) {
    const pair = i % 1000;
    const [a, b] = i % 2 ? [`bot${pair}a`, `bot${pair}b`] : [`bot${pair}b`, `bot${pair}a`];
    out.push({ type: 'bot_message', ts: (ts += 3), channel: 'slack', accountId: 'T1', conversationId: `C${pair % 250}`, senderId: a, receiverId: b, eventId: `m${i}` });
  }
  return out;
}

const config = configFrom({
  tools: { loopDetection: { enabled: true } },
  agents: { list: [{ id: 'safe-runner', tools: { loopDetection: { enabled: true, warningThreshold: 8, criticalThreshold: 16 } } }] },
  channels: { defaults: { botLoopProtection: { maxConversationBotEvents: 200 } } },
});
const topology = buildTopology(config);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function measure(label, events, body) {
  const rates = [];
  for (let i = 0; i < ITER; i++) {
    const t = performance.now();
    body(events);
    rates.push(events.length / ((performance.now() - t) / 1000));
  }
  const r = median(rates);
  console.log(`${label.padEnd(44)} ${Math.round(r).toLocaleString('en-US').padStart(12)} events/s  (median of ${ITER}, ${events.length.toLocaleString('en-US')} events)`);
  return r;
}

function foldOnly(nodeName) {
  const node = topology.nodes.find((n) => n.name === nodeName);
  return (events) => {
    const states = new Map();
    for (const e of events) {
      const k = node.process.keyOf(e);
      states.set(k, step(node.process, states.get(k) ?? node.process.initialState, e).state);
    }
  };
}

const driverRun = (events) => {
  const d = new InMemoryDriver(topology, 6);
  for (const e of events) d.pipe(e);
};

const validated = (nodeName, events) => {
  const node = topology.nodes.find((n) => n.name === nodeName);
  return events.map((e) => node.parse(e).value);
};

console.log(`node ${process.version}, ${EVENTS.toLocaleString('en-US')} events per case`);
// Each traffic is generated, measured and dropped in turn, so one case's heap does not slow the next.
{
  const hashed = traffic(true);
  measure('tool-loop fold, pre-hashed', validated('tool-loop', hashed), foldOnly('tool-loop'));
  measure('tool-loop driver, pre-hashed', hashed, driverRun);
}
{
  const raw = traffic(false);
  measure('tool-loop fold, raw (1 KB args, 4 KB results)', validated('tool-loop', raw), foldOnly('tool-loop'));
  measure('tool-loop driver, raw', raw, driverRun);
}
{
  const bots = botTraffic();
  measure('bot-loop fold, 1000 pairs in 250 conversations', validated('bot-loop', bots), foldOnly('bot-loop'));
  measure('bot-loop driver', bots, driverRun);
}
