#!/usr/bin/env node
// Per-event cost as one key's state grows: it must stay flat (docs/behaviour.md §1 "Limits").
//
//   npm run build && node bench/state-growth.mjs [--sizes 1000,5000,10000,20000,40000] [--tail 500]
//
// eventIds:  one run receives N tool calls, each with a new eventId (the run remembers at most
//            4,096); timed: the last --tail of them.
// senders:   one conversation receives N bot messages, each from a new sender to one receiver
//            (at most 1,000 pairs are kept); timed: the last --tail of them.
// Each figure is µs per event through the partition task (validation, hashing, the fold, ids),
// and the ratio to the smallest size in the same run: flat means ratios near 1.
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { buildTopology } from '../dist/topology/build.js';
import { configFrom } from '../dist/topology/config.js';
import { PartitionTask } from '../dist/topology/task.js';

const { values } = parseArgs({
  options: { sizes: { type: 'string', default: '1000,5000,10000,20000,40000' }, tail: { type: 'string', default: '500' }, help: { type: 'boolean' } },
});
if (values.help) {
  process.stdout.write('usage: node bench/state-growth.mjs [--sizes 1000,5000,...] [--tail 500]\n');
  process.exit(0);
}
const sizes = values.sizes.split(',').map(Number);
const tail = Number(values.tail);
if (!(tail > 0) || sizes.some((n) => !(n >= tail))) {
  process.stderr.write('loopguard: state-growth: every size must be at least --tail\n');
  process.exit(2);
}
const T0 = 1_700_000_000_000;
const [toolNode, botNode] = buildTopology(
  configFrom({ tools: { loopDetection: { enabled: true } }, channels: { defaults: { botLoopProtection: { maxConversationBotEvents: 500 } } } }),
).nodes;
const clock = { maxFutureSkewMs: 1e15, now: () => T0 };

function timeTail(node, n, make) {
  const task = new PartitionTask(node, 0, clock);
  let started = 0;
  for (let i = 0; i < n; i++) {
    if (i === n - tail) started = performance.now();
    task.process({ topic: 't', partition: 0, offset: i, value: make(i) });
  }
  return ((performance.now() - started) * 1000) / tail;
}

const call = (i) => ({ type: 'tool_call', ts: T0 + i, runId: 'r', toolName: 'read', argsHash: `read:${i % 7}`, eventId: `id-${i}` });
const message = (i) => ({ type: 'bot_message', ts: T0 + i * 10, channel: 'slack', accountId: 'T', conversationId: 'C', senderId: `bot-${i}`, receiverId: 'R', eventId: `m-${i}` });

const rows = [];
for (const [name, node, make] of [
  ['eventIds in one run', toolNode, call],
  ['senders in one conversation', botNode, message],
]) {
  timeTail(node, Math.min(...sizes), make); // warm up
  const base = timeTail(node, sizes[0], make);
  for (const n of sizes) {
    const us = n === sizes[0] ? base : timeTail(node, n, make);
    rows.push({ case: name, n, 'µs/event': us.toFixed(2), 'vs smallest': (us / base).toFixed(2) });
  }
}
console.table(rows);
