// `loopguard start --demo` as a user runs it on a machine with no broker configured: it starts
// its own Kafka and schema registry, feeds the demo through them, and on Ctrl-C stops the
// processor and exactly what it started. The one test that runs a second broker.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from './helpers/harness.js';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const stackDir = mkdtempSync(join(tmpdir(), 'loopguard-start-stack-'));
// The Maven artifacts are shared with the test run's own stack (where scripts/stack.mjs keeps
// them), so nothing is fetched twice.
const stackCache = process.env.LOOPGUARD_STACK_CACHE ?? join(process.env.LOOPGUARD_STACK_DIR ?? join(ROOT, '.stack'), 'cache');

afterAll(async () => {
  // Whatever the test left behind if it failed half-way; a no-op after a clean stop.
  const down = spawn(process.execPath, [join(ROOT, 'scripts/stack.mjs'), 'down'], { env: { ...process.env, LOOPGUARD_STACK_DIR: stackDir }, stdio: 'ignore' });
  await new Promise((resolve) => down.once('close', resolve));
  rmSync(stackDir, { recursive: true, force: true });
});

/** Running, and not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  return !/^\d+ \(.*\) Z/.test(stat);
}

const pidIn = (name: string) => Number(readFileSync(join(stackDir, `${name}.pid`), 'utf8'));

describe('loopguard start', () => {
  it('runs the demo through its own embedded Kafka and registry, and stops everything it started on SIGINT', async () => {
    const { KAFKA_BROKERS: _b, SCHEMA_REGISTRY_URL: _r, LOOPGUARD_CONFIG: _c, ...env } = process.env;
    const child = spawn(process.execPath, [CLI, 'start', '--demo', '--console-port', '0', '--metrics-port', '0'], {
      env: { ...env, LOOPGUARD_STACK_DIR: stackDir, LOOPGUARD_STACK_CACHE: stackCache, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitFor('the console address', () => /^console: http/m.test(out) || child.exitCode !== null, 400_000);
      expect(out).toContain('examples/config/starter.json5 (the starter');
      expect(out).toContain(`embedded Kafka and schema registry in ${stackDir}`);
      expect(out).toContain('embedded stack started');
      const brokers = /^KAFKA_BROKERS=(127\.0\.0\.1:\d+)$/m.exec(out)?.[1];
      const registry = /^SCHEMA_REGISTRY_URL=(http:\/\/127\.0\.0\.1:\d+\/apis\/ccompat\/v7)$/m.exec(out)?.[1];
      expect(brokers).toBeDefined();
      expect(registry).toBeDefined();
      expect(brokers).not.toBe(process.env.KAFKA_BROKERS);
      const url = /^console: (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(out)![1]!;
      const snapshot = async () =>
        (await fetch(`${url}api/snapshot`)).json() as Promise<{ guard: { ready: boolean }; runs: Array<{ key: string; state: string }>; cooldowns: Array<{ bots: string }> }>;
      await waitFor('the guard to be ready', async () => (await snapshot()).guard.ready);

      await waitFor('the demo decisions to come back', () => /^demo: all \d+ decisions came back through Kafka/m.test(out), 120_000);
      expect(out).toMatch(/^demo: all \d+ decisions came back through Kafka \(2 abort, \d+ allow, \d+ block, \d+ deliver, \d+ suppress, \d+ warn\), as the in-memory run/m);
      expect(out).toMatch(/BLOCK +run=run-stuck-reader-\w+ read generic_repeat count=20/);
      expect(out).toMatch(/SUPPRESS slack C0ALERTS-\w+ B0DEPLOY ↔ B0TRIAGE pair_budget/);
      const seen = await snapshot();
      expect(seen.runs.find((r) => r.key.startsWith('run-stuck-reader-'))?.state).toBe('blocked');
      expect(seen.runs.find((r) => r.key.startsWith('run-compaction-'))?.state).toBe('aborted');
      expect(seen.cooldowns.map((c) => c.bots)).toEqual(['B0DEPLOY ↔ B0TRIAGE']);

      const pids = { kafka: pidIn('kafka'), registry: pidIn('registry'), processor: child.pid! };
      for (const pid of Object.values(pids)) expect(alive(pid)).toBe(true);
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      for (const [name, pid] of Object.entries(pids)) expect(alive(pid), `${name} (pid ${pid}) still alive`).toBe(false);
      expect(existsSync(join(stackDir, 'env'))).toBe(false);
    } catch (e) {
      child.kill('SIGKILL');
      throw new Error(`${(e as Error).message}\n--- stdout\n${out}\n--- stderr (tail)\n${err.split('\n').slice(-30).join('\n')}`, { cause: e });
    }
  });
});
