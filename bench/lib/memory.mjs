// Figure 4: heap per active run (bench/live-runs.mjs in its own process, with --expose-gc).
import { join } from 'node:path';
import { median, timedNode } from './proc.mjs';
import { ROOT } from './streams.mjs';
import { fmt, row } from './table.mjs';

const GOAL_BYTES = 1024;

export async function memoryPerRun({ rounds, quick }, log) {
  const runs = quick ? 10_000 : 100_000;
  const results = [];
  for (let r = 0; r < rounds; r++) {
    const { stdout } = await timedNode(['--expose-gc', join(ROOT, 'bench/live-runs.mjs'), '--runs', String(runs), '--json'], { keepStdout: true });
    const m = JSON.parse(stdout);
    if (m.storedKeys !== runs) throw new Error(`live-runs: expected ${runs} stored runs, found ${m.storedKeys}`);
    log(`round ${r + 1} live runs: ${fmt.bytes(m.bytesPerRun)} per run (heap ${m.baselineHeapMB.toFixed(1)} → ${m.heapMB.toFixed(1)} MB)`);
    results.push(m);
  }
  const perRun = median(results.map((m) => m.bytesPerRun));
  const before = median(results.map((m) => m.baselineHeapMB));
  const after = median(results.map((m) => m.heapMB));
  return [
    row(`memory per active run, ${runs.toLocaleString('en-US')} live runs, defaults + detection on (heap after GC)`, {
      value: perRun,
      show: fmt.bytes,
      goal: '≤ 1 KB',
      check: (v) => v <= GOAL_BYTES,
      note: `2 calls + 2 outcomes per run, pre-hashed, no run_end; heap ${before.toFixed(1)} MB with the empty driver, ${after.toFixed(1)} MB with the runs; medians of ${rounds}`,
    }),
  ];
}
