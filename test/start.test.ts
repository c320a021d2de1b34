// `loopguard start` as a user runs it on a machine with no broker configured: it starts its own
// Kafka and schema registry, feeds the demo through them, and stops exactly what it started
// however it ends: SIGINT, SIGTERM, SIGHUP (its terminal closed), its stdout closed
// (`start | head`), and SIGKILL, after which the stack's supervisor stops the stack. Each of
// those starts its own stack (start stops only a stack it started), each in a folder of its
// own; the Maven artifacts are shared, so nothing is fetched or unpacked twice.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from './helpers/harness.js';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const STACK_SCRIPT = join(ROOT, 'scripts/stack.mjs');
const stacks = mkdtempSync(join(tmpdir(), 'loopguard-start-stacks-'));
// Shared with the test run's own stack (where scripts/stack.mjs keeps them).
const stackCache = process.env.LOOPGUARD_STACK_CACHE ?? join(process.env.LOOPGUARD_STACK_DIR ?? join(ROOT, '.stack'), 'cache');
/** How long what start started may outlive it (a JVM's orderly stop on a busy machine). */
const GONE_WITHIN_MS = 90_000;
const BOOT_MS = 400_000;
/** A test that boots a stack: the boot, on a busy 2-core machine, and the stop. */
const BOOTING_TEST_MS = BOOT_MS + 2 * GONE_WITHIN_MS;

const { KAFKA_BROKERS: _b, SCHEMA_REGISTRY_URL: _r, LOOPGUARD_CONFIG: _c, ...baseEnv } = process.env;

afterAll(async () => {
  // Whatever a test left behind if it failed half-way; a no-op after a clean stop.
  for (const dir of dirs) {
    const down = spawn(process.execPath, [STACK_SCRIPT, 'down'], { env: { ...process.env, LOOPGUARD_STACK_DIR: dir }, stdio: 'ignore' });
    await new Promise((resolve) => down.once('close', resolve));
  }
  rmSync(stacks, { recursive: true, force: true });
});

const dirs: string[] = [];
function stackDir(name: string): string {
  const dir = join(stacks, name);
  mkdirSync(dir);
  dirs.push(dir);
  return dir;
}

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

interface Started {
  readonly child: ChildProcessWithoutNullStreams;
  readonly dir: string;
  out(): string;
  err(): string;
  readonly exited: Promise<number | null>;
}

/**
 * `loopguard start args`, or `shell` with the start command as $START. On free ports (several
 * stacks boot at once), unless `usualPorts`: then on the ones a user gets, 9092 and 8081.
 */
function start(dir: string, args: readonly string[] = [], shell?: string, usualPorts = false): Started {
  const all = [...args, '--console-port', '0', '--metrics-port', '0', ...(usualPorts ? [] : ['--kafka-port', '0', '--registry-port', '0'])];
  const command = `"${process.execPath}" "${CLI}" start ${all.join(' ')}`;
  const child = spawn(shell === undefined ? process.execPath : 'sh', shell === undefined ? [CLI, 'start', ...all] : ['-c', shell.replace('$START', command)], {
    env: { ...baseEnv, LOOPGUARD_STACK_DIR: dir, LOOPGUARD_STACK_CACHE: stackCache, LOG_LEVEL: 'info' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, dir, out: () => out, err: () => err, exited };
}

/** What start started: the processor (itself), the two JVMs and the stack's supervisor. */
function startedBy(s: Started, startPid = s.child.pid!): Record<string, number> {
  const pid = (name: string) => Number(readFileSync(join(s.dir, `${name}.pid`), 'utf8'));
  const owner = JSON.parse(readFileSync(join(s.dir, 'owner'), 'utf8')) as { supervisor: number; start: number };
  expect(owner.start).toBe(startPid);
  const pids = { start: startPid, kafka: pid('kafka'), registry: pid('registry'), supervisor: owner.supervisor };
  for (const [name, p] of Object.entries(pids)) expect(alive(p), `${name} (pid ${p}) alive while start runs`).toBe(true);
  return pids;
}

async function allGone(pids: Record<string, number>): Promise<void> {
  await waitFor(`${Object.keys(pids).join(', ')} to be gone`, () => Object.values(pids).every((p) => !alive(p)), GONE_WITHIN_MS);
}

/** The test's failure with what start printed. */
async function explained(s: Started, test: () => Promise<void>): Promise<void> {
  try {
    await test();
  } catch (e) {
    s.child.kill('SIGKILL');
    throw new Error(`${(e as Error).message}\n--- stdout\n${s.out()}\n--- stderr (tail)\n${s.err().split('\n').slice(-30).join('\n')}`, { cause: e });
  }
}

const running = (s: Started) => waitFor('the processor to run', () => /^processor running/m.test(s.out()) || s.child.exitCode !== null, BOOT_MS);

/** Log lines at error or above (pino: 50 error, 60 fatal). */
const errorLines = (text: string) => text.split('\n').filter((l) => /^\{.*"level":(5|6)\d\b/.test(l));

/** Sums of a counter's series in Prometheus text. */
function total(metrics: string, name: string): number {
  return metrics
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

/**
 * The README's Claude Desktop config, as written: its command (`loopguard`, on the PATH as
 * `npm install -g .` puts it), its arguments and its env, with only the wrapped server after
 * `--` swapped for the test's counting server. Its env must be what start printed; through it,
 * the 21st identical call is blocked by loopguard (the starter config's default thresholds).
 */
async function throughReadmeConfig(printed: readonly string[]): Promise<void> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('"mcpServers"'))!;
  const server = (JSON.parse(block) as { mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }> }).mcpServers.filesystem!;
  expect(printed.at(-1)).toBe(`in an MCP client's config: "env": ${JSON.stringify(server.env)}`);
  const bin = mkdtempSync(join(tmpdir(), 'loopguard-bin-'));
  symlinkSync(CLI, join(bin, server.command));
  const counted = join(bin, 'count.txt');
  const args = [...server.args.slice(0, server.args.indexOf('--') + 1), process.execPath, join(ROOT, 'test', 'helpers', 'mcpCountingServer.mjs'), counted];
  const transport = new StdioClientTransport({
    command: server.command,
    args,
    env: { ...server.env, PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH}`, HOME: bin },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'claude-desktop', version: '1.0.0' });
  try {
    await client.connect(transport);
    const results: CallToolResult[] = [];
    for (let i = 0; i < 21; i++) results.push((await client.callTool({ name: 'read', arguments: { path: 'notes.txt' } })) as CallToolResult);
    expect(results.slice(0, 20).every((r) => r.isError === undefined)).toBe(true);
    expect(results[20]).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/^\[loopguard generic_repeat\] Blocked: .* 20 times/) }] });
  } finally {
    await client.close();
    rmSync(bin, { recursive: true, force: true });
  }
}

describe('loopguard start', () => {
  it(
    'runs the demo through its own Kafka and registry, counts all of it in /metrics, logs no errors, and stops everything it started on SIGINT',
    async () => {
      const s = start(stackDir('sigint'), ['--demo']);
      await explained(s, async () => {
        await waitFor('the console address', () => /^console: http/m.test(s.out()) || s.child.exitCode !== null, BOOT_MS);
        const out = s.out;
        expect(out()).toContain('examples/config/starter.json5 (the starter');
        expect(out()).toContain(`embedded Kafka and schema registry in ${s.dir}`);
        expect(out()).toContain('embedded stack started');
        const brokers = /^KAFKA_BROKERS=(127\.0\.0\.1:\d+)$/m.exec(out())?.[1];
        const registry = /^SCHEMA_REGISTRY_URL=(http:\/\/127\.0\.0\.1:\d+\/apis\/ccompat\/v7)$/m.exec(out())?.[1];
        expect(brokers).toBeDefined();
        expect(registry).toBeDefined();
        expect(brokers).not.toBe(process.env.KAFKA_BROKERS);
        const url = /^console: (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(out())![1]!;
        const metricsUrl = /^metrics: (http:\/\/\S+\/metrics)/m.exec(out())![1]!;
        const snapshot = async () =>
          (await fetch(`${url}api/snapshot`)).json() as Promise<{ guard: { ready: boolean }; runs: Array<{ key: string; state: string }>; cooldowns: Array<{ bots: string }> }>;
        await waitFor('the guard to be ready', async () => (await snapshot()).guard.ready);

        await waitFor('the demo decisions to come back', () => /^demo: all \d+ decisions came back through Kafka/m.test(out()), 120_000);
        expect(out()).toMatch(/^demo: all \d+ decisions came back through Kafka \(2 abort, \d+ allow, \d+ block, \d+ deliver, \d+ suppress, \d+ warn\), as the in-memory run/m);
        expect(out()).toMatch(/BLOCK +run=run-stuck-reader-\w+ read generic_repeat count=20/);
        expect(out()).toMatch(/SUPPRESS slack C0ALERTS-\w+ B0DEPLOY ↔ B0TRIAGE pair_budget/);
        const seen = await snapshot();
        expect(seen.runs.find((r) => r.key.startsWith('run-stuck-reader-'))?.state).toBe('blocked');
        expect(seen.runs.find((r) => r.key.startsWith('run-compaction-'))?.state).toBe('aborted');
        expect(seen.cooldowns.map((c) => c.bots)).toEqual(['B0DEPLOY ↔ B0TRIAGE']);

        // Every demo event folded and every decision published is counted (issue 30: 13 of 349).
        const [, events, decisions] = /^demo: (\d+) events produced; (\d+) decisions expected back/m.exec(out())!.map(Number);
        expect(events).toBeGreaterThan(300);
        const metrics = async () => (await fetch(metricsUrl)).text();
        let text = '';
        await waitFor('the metrics to count the demo', async () => total((text = await metrics()), 'loopguard_decisions_total') >= decisions!, 30_000).catch(() => {});
        expect(total(text, 'loopguard_events_total')).toBe(events);
        expect(total(text, 'loopguard_decisions_total')).toBe(decisions);

        // A broker starting up is no error: the client's retried conditions stay below warn.
        expect(errorLines(s.err())).toEqual([]);

        const pids = startedBy(s);
        s.child.kill('SIGINT');
        expect(await s.exited).toBe(0);
        await allGone(pids);
        expect(existsSync(join(s.dir, 'env'))).toBe(false);
      });
    },
    BOOTING_TEST_MS,
  );

  // Three stacks booting at once: most of a boot is waiting on the JVMs.
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
    it.concurrent(
      `stops everything it started on ${signal}`,
      async () => {
        const s = start(stackDir(signal));
        await explained(s, async () => {
          await running(s);
          const pids = startedBy(s);
          s.child.kill(signal);
          expect(await s.exited).toBe(0);
          await allGone(pids);
        });
      },
      BOOTING_TEST_MS,
    );
  }

  it.concurrent(
    'leaves a stack that outlives start by SIGKILL only until its supervisor sees start gone',
    async () => {
      const s = start(stackDir('sigkill'));
      await explained(s, async () => {
        await running(s);
        const pids = startedBy(s);
        s.child.kill('SIGKILL');
        await s.exited;
        await allGone(pids);
        expect(existsSync(join(s.dir, 'env'))).toBe(false);
      });
    },
    BOOTING_TEST_MS,
  );

  it(
    'stops everything it started when its stdout is closed (start | head)',
    async () => {
      const dir = stackDir('head');
      // head takes the first lines and exits; start's next line meets a closed pipe.
      const s = start(dir, ['--demo'], '$START | head -n 8');
      await explained(s, async () => {
        const owner = join(dir, 'owner');
        await waitFor('the stack to be up', () => existsSync(owner) || s.child.exitCode !== null, BOOT_MS);
        const pids = startedBy(s, (JSON.parse(readFileSync(owner, 'utf8')) as { start: number }).start);
        await allGone(pids);
        expect(await s.exited).toBe(0);
        expect(s.out().trimEnd().split('\n')).toHaveLength(8);
      });
    },
    BOOTING_TEST_MS,
  );

  it(
    "gives the same addresses every time, and the README's desktop config, pasted as written, works against it",
    async () => {
      const dir = stackDir('stable');
      const addresses = (s: Started) =>
        s
          .out()
          .split('\n')
          .filter((l) => /^(KAFKA_BROKERS=|SCHEMA_REGISTRY_URL=|in an MCP client's config: )/.test(l));
      const first = start(dir, [], undefined, true);
      let printed: string[] = [];
      await explained(first, async () => {
        await running(first);
        printed = addresses(first);
        expect(printed).toEqual([
          'KAFKA_BROKERS=127.0.0.1:9092',
          'SCHEMA_REGISTRY_URL=http://127.0.0.1:8081/apis/ccompat/v7',
          `in an MCP client's config: "env": {"KAFKA_BROKERS":"127.0.0.1:9092","SCHEMA_REGISTRY_URL":"http://127.0.0.1:8081/apis/ccompat/v7"}`,
        ]);
        await throughReadmeConfig(printed);
        const pids = startedBy(first);
        first.child.kill('SIGINT');
        expect(await first.exited).toBe(0);
        await allGone(pids);
      });
      const second = start(dir, [], undefined, true);
      await explained(second, async () => {
        await running(second);
        expect(addresses(second)).toEqual(printed);
        const pids = startedBy(second);
        second.child.kill('SIGINT');
        expect(await second.exited).toBe(0);
        await allGone(pids);
      });
    },
    2 * BOOTING_TEST_MS,
  );

  it('reports a running stack no start owns, reuses it, and leaves it alone', async () => {
    const dir = stackDir('left-behind');
    // Two live processes standing in for the JVMs of a stack whose start died long ago.
    const jvms = [0, 1].map(() => spawn('sleep', ['600'], { stdio: 'ignore' }));
    try {
      writeFileSync(join(dir, 'kafka.pid'), String(jvms[0]!.pid));
      writeFileSync(join(dir, 'registry.pid'), String(jvms[1]!.pid));
      writeFileSync(join(dir, 'env'), 'KAFKA_BROKERS=127.0.0.1:9\nSCHEMA_REGISTRY_URL=http://127.0.0.1:9/apis/ccompat/v7\n');
      writeFileSync(join(dir, 'owner'), `${JSON.stringify({ supervisor: 2 ** 22 + 1, start: 2 ** 22 + 2 })}\n`);
      const s = start(dir);
      await explained(s, async () => {
        await waitFor('the report', () => /^embedded stack already running there/m.test(s.out()) || s.child.exitCode !== null, 60_000);
        expect(s.out()).toMatch(
          /^embedded stack already running there, left behind: the loopguard start that started it \(its supervisor, pid 4194305\) is gone: reused, and left running \(stop it with LOOPGUARD_STACK_DIR=\S+ node \S+stack\.mjs down\)$/m,
        );
        s.child.kill('SIGINT');
        await s.exited;
        expect(jvms.every((j) => alive(j.pid!))).toBe(true);
        expect(existsSync(join(dir, 'env'))).toBe(true);
      });
    } finally {
      for (const j of jvms) j.kill('SIGKILL');
      for (const f of ['env', 'owner', 'kafka.pid', 'registry.pid']) rmSync(join(dir, f), { force: true });
    }
  });
});
