#!/usr/bin/env node
// Memory held per active run: N runs that have started and not ended (--calls tool calls and
// their outcomes each, pre-hashed, no run_end) folded through the in-memory driver, which runs the
// real partition tasks and stores. Heap after full GCs, minus the same driver before any event.
//
//   npm run build && node --expose-gc bench/live-runs.mjs [--runs 100000] [--calls 2] [--json]
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { buildTopology } from '../dist/topology/build.js';
import { configFrom } from '../dist/topology/config.js';
import { InMemoryDriver } from '../dist/topology/testing/driver.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '100000' },
    calls: { type: 'string', default: '2' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  process.stdout.write('usage: node --expose-gc bench/live-runs.mjs [--runs 100000] [--calls 2] [--json]\n');
  process.exit(0);
}
if (typeof globalThis.gc !== 'function') {
  process.stderr.write('loopguard: live-runs: run with node --expose-gc\n');
  process.exit(2);
}
const whole = (name) => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`loopguard: live-runs: --${name} must be a whole number of at least 1\n`);
    process.exit(2);
  }
  return n;
};
const RUNS = whole('runs');
const CALLS = whole('calls');
const T0 = 1_700_000_000_000;

function heapAfterGc() {
  for (let i = 0; i < 4; i++) globalThis.gc();
  return process.memoryUsage().heapUsed;
}

// Distinct flat strings per run, as a decoder would hand them over.
const hex = (s) => createHash('sha256').update(s).digest('hex');

function* runEvents(run) {
  const who = { sessionKey: `s${run}`, runId: `run-${run}`, agentId: 'main' };
  for (let c = 0; c < CALLS; c++) {
    const call = { ...who, toolCallId: `r${run}-c${c}`, toolName: 'read', argsHash: `read:${hex(`a${run}/${c}`)}` };
    yield { type: 'tool_call', ts: T0 + run * 2 * CALLS + c * 2, ...call };
    yield { type: 'tool_outcome', ts: T0 + run * 2 * CALLS + c * 2 + 1, ...call, resultHash: hex(`r${run}/${c}`) };
  }
}

// Loop detection on (what loopguard is run for); every other setting at its default.
const config = configFrom({ tools: { loopDetection: { enabled: true } } });
const driver = new InMemoryDriver(buildTopology(config), config.settings.topics.partitions);
// Warm the code paths and the per-partition tasks, so the baseline holds them too.
for (const e of runEvents(-1)) driver.pipe(e);
const before = heapAfterGc();
for (let run = 0; run < RUNS; run++) {
  for (const e of runEvents(run)) {
    const r = driver.pipe(e);
    if (!r.ok) throw new Error(`run ${run}: ${r.reason}`);
  }
}
const after = heapAfterGc();
const result = { runs: RUNS, storedKeys: driver.storedKeys - 1, baselineHeapMB: before / 2 ** 20, heapMB: after / 2 ** 20, bytesPerRun: (after - before) / RUNS };
if (values.json) process.stdout.write(JSON.stringify(result) + '\n');
else
  console.table([
    {
      runs: RUNS,
      'stored keys': result.storedKeys,
      'heap before (MB)': result.baselineHeapMB.toFixed(1),
      'heap after (MB)': result.heapMB.toFixed(1),
      'bytes per run': Math.round(result.bytesPerRun),
    },
  ]);
