// Figure 4: heap per active run (bench/live-runs.mjs in its own process, with --expose-gc):
// the case (100k runs of two calls), and runs whose history is full (30 calls, the
// default historySize), where a run holds the most it ever will.
import { join } from 'node:path';
import { median, timedNode } from './proc.mjs';
import { ROOT } from './streams.mjs';
import { fmt, row } from './table.mjs';

const GOAL_BYTES = 1024;

async function measure({ runs, calls, rounds }, log) {
  const results = [];
  for (let r = 0; r < rounds; r++) {
    const { stdout } = await timedNode(['--expose-gc', join(ROOT, 'bench/live-runs.mjs'), '--runs', String(runs), '--calls', String(calls), '--json'], { keepStdout: true });
    const m = JSON.parse(stdout);
    if (m.storedKeys !== runs) throw new Error(`live-runs: expected ${runs} stored runs, found ${m.storedKeys}`);
    log(`round ${r + 1} ${runs} live runs × ${calls} calls: ${fmt.bytes(m.bytesPerRun)} per run (heap ${m.baselineHeapMB.toFixed(1)} → ${m.heapMB.toFixed(1)} MB)`);
    results.push(m);
  }
  return { perRun: median(results.map((m) => m.bytesPerRun)), before: median(results.map((m) => m.baselineHeapMB)), after: median(results.map((m) => m.heapMB)) };
}

export async function memoryPerRun({ rounds, quick }, log) {
  const cases = [
    { runs: quick ? 10_000 : 100_000, calls: 2, what: "the issue's case" },
    { runs: quick ? 2_000 : 20_000, calls: 30, what: 'history full (default historySize 30)' },
  ];
  const rows = [];
  for (const c of cases) {
    const m = await measure({ ...c, rounds }, log);
    rows.push(
      row(`memory per active run: ${c.runs.toLocaleString('en-US')} live runs × ${c.calls} calls, ${c.what} (heap after GC)`, {
        value: m.perRun,
        show: fmt.bytes,
        goal: '≤ 1 KB',
        check: (v) => v <= GOAL_BYTES,
        note: `each call with its outcome, pre-hashed, no run_end; detection on, other settings default; heap ${m.before.toFixed(1)} MB with the empty driver, ${m.after.toFixed(1)} MB with the runs; medians of ${rounds}`,
      }),
    );
  }
  return rows;
}
