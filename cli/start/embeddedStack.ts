// The Kafka broker and schema registry `start` runs when no broker is configured: the
// jar-based stack of scripts/stack.mjs (Apache Kafka in KRaft mode and Apicurio Registry, from
// Maven Central, on free loopback ports), in a folder of the user's cache. A stack already
// running there is reused and left running; one started here runs under a supervisor
// (`stack.mjs supervise`) that stops it when `stop` asks or when this process is gone, however
// it ended, SIGKILL included.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES, LoopguardError } from '../../topology/errors.js';
import { packageFile } from '../packageInfo.js';
import { choosePorts } from './ports.js';

export interface EmbeddedStack {
  readonly dir: string;
  readonly brokers: string;
  readonly registryUrl: string;
  /** True when this process started it (and `stop` stops it). */
  readonly started: boolean;
  /** For a reused stack: who runs it, when no running `loopguard start` does (it was left behind). */
  readonly leftBehind: string | null;
  readonly pids: { readonly kafka: number | null; readonly registry: number | null };
  /** What the user should know about the ports (a usual one was taken). */
  readonly notes: readonly string[];
  stop(): Promise<void>;
}

const JAVA_HINT = 'install a Java 17+ runtime (e.g. apt-get install openjdk-17-jre-headless), or point KAFKA_BROKERS and SCHEMA_REGISTRY_URL at a broker and registry you run';
const MAVEN_HINT = 'install Apache Maven (e.g. apt-get install maven), or point KAFKA_BROKERS and SCHEMA_REGISTRY_URL at a broker and registry you run';

const fail = (message: string): never => {
  throw new LoopguardError(ERROR_CODES.kafka, message);
};

/** The Java major version from `java -version`'s banner ("1.8.0_…" is 8). */
export function javaMajor(banner: string): number | null {
  const m = /version "(\d+)(?:\.(\d+))?/.exec(banner);
  if (m === null) return null;
  return m[1] === '1' ? Number(m[2]) : Number(m[1]);
}

/** One line naming what to install when Java 17+ or Maven is missing. */
export function requireJavaAndMaven(): void {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (java.error || java.status !== 0) fail(`no broker is configured and the embedded Kafka needs Java, which did not run: ${JAVA_HINT}`);
  const major = javaMajor(`${java.stderr}${java.stdout}`);
  if (major !== null && major < 17) fail(`no broker is configured and the embedded Kafka needs Java 17 or newer, found Java ${major}: ${JAVA_HINT}`);
  const mvn = spawnSync('mvn', ['-v'], { encoding: 'utf8' });
  if (mvn.error || mvn.status !== 0) fail(`no broker is configured and the embedded Kafka is fetched with Maven, which did not run: ${MAVEN_HINT}`);
}

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
}

/** Runs `node scripts/stack.mjs <cmd>` for `dir`; its progress lines go to our stderr. */
function stackScript(cmd: 'down' | 'status', dir: string): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [packageFile('scripts/stack.mjs'), cmd], {
      env: { ...process.env, LOOPGUARD_STACK_DIR: dir },
      stdio: ['ignore', 'pipe', cmd === 'status' ? 'ignore' : 'inherit'],
    });
    let stdout = '';
    child.stdout!.on('data', (d) => {
      stdout += d;
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout }));
  });
}

const envOf = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .trim()
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

function pidIn(dir: string, name: string): number | null {
  const f = join(dir, `${name}.pid`);
  return existsSync(f) ? Number(readFileSync(f, 'utf8')) : null;
}

/** A reused stack that no running `loopguard start` owns: said how, or null when one does. */
export function leftBehind(dir: string, alive: (pid: number) => boolean = isAlive): string | null {
  const file = join(dir, 'owner');
  if (!existsSync(file)) return 'no loopguard start owns it (started by hand, or left behind by an older loopguard)';
  const owner = (JSON.parse(readFileSync(file, 'utf8')) as { supervisor?: unknown }).supervisor;
  if (typeof owner === 'number' && alive(owner)) return null;
  return `left behind: the loopguard start that started it (its supervisor, pid ${String(owner)}) is gone`;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function handle(dir: string, env: Record<string, string>, supervisor: ChildProcess | null, notes: readonly string[] = []): EmbeddedStack {
  const brokers = env.KAFKA_BROKERS;
  const registryUrl = env.SCHEMA_REGISTRY_URL;
  if (!brokers || !registryUrl) fail(`the embedded stack in ${dir} gave no KAFKA_BROKERS / SCHEMA_REGISTRY_URL`);
  return {
    dir,
    brokers: brokers!,
    registryUrl: registryUrl!,
    started: supervisor !== null,
    leftBehind: supervisor === null ? leftBehind(dir) : null,
    pids: { kafka: pidIn(dir, 'kafka'), registry: pidIn(dir, 'registry') },
    notes,
    stop: supervisor === null ? () => Promise.resolve() : once(() => stopSupervisor(supervisor)),
  };
}

const once = (f: () => Promise<void>) => {
  let done: Promise<void> | undefined;
  return () => (done ??= f());
};

const exited = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('close', (code) => resolve(code)));

/** EOF on its stdin is the supervisor's cue: it stops the JVMs, removes the data and exits. */
async function stopSupervisor(child: ChildProcess): Promise<void> {
  child.stdin!.end();
  await exited(child);
}

/**
 * `stack.mjs supervise` for `dir`, resolved once the stack answers (with its env), rejected when
 * the supervisor exits first. Detached: a terminal's SIGINT / SIGHUP reach only this process,
 * which then stops the stack in order.
 */
function superviseStack(dir: string, signal: AbortSignal, ports: { kafka: number; registry: number }): Promise<{ child: ChildProcess; env: Record<string, string> | null }> {
  const child = spawn(process.execPath, [packageFile('scripts/stack.mjs'), 'supervise'], {
    env: { ...process.env, LOOPGUARD_STACK_DIR: dir, LOOPGUARD_STACK_KAFKA_PORT: String(ports.kafka), LOOPGUARD_STACK_REGISTRY_PORT: String(ports.registry) },
    stdio: ['pipe', 'pipe', 'inherit'],
    detached: true,
  });
  child.stdin!.on('error', () => {});
  return new Promise((resolve, reject) => {
    let stdout = '';
    const onAbort = () => void stopSupervisor(child).then(() => resolve({ child, env: null }));
    signal.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', (d) => {
      stdout += d;
      if (/^SCHEMA_REGISTRY_URL=.*\n/m.test(stdout)) {
        signal.removeEventListener('abort', onAbort);
        resolve({ child, env: envOf(stdout) });
      }
    });
    child.once('error', reject);
    child.once('close', () => {
      signal.removeEventListener('abort', onAbort);
      resolve({ child, env: null });
    });
  });
}

/** The port of `host:port` or of a URL's authority. */
const portOf = (address: string): number => Number(/:(\d+)(?:\/|$)/.exec(address)?.[1]);

/**
 * The stack in `dir`: the running one, or a new one on the ports chosen (cli/start/ports.ts; a
 * running one on other ports than the user asked for is an error). If `signal` aborts while it
 * starts, what was started is stopped again before this rejects.
 */
export async function ensureStack(dir: string, signal: AbortSignal, chosen: { kafka?: number; registry?: number } = {}): Promise<EmbeddedStack> {
  if ((await stackScript('status', dir)).code === 0 && existsSync(join(dir, 'env'))) {
    const running = handle(dir, envOf(readFileSync(join(dir, 'env'), 'utf8')), null);
    const moved = (['kafka', 'registry'] as const).filter(
      (k) => chosen[k] !== undefined && chosen[k] !== 0 && chosen[k] !== portOf(k === 'kafka' ? running.brokers : running.registryUrl),
    );
    if (moved.length > 0)
      throw new LoopguardError(
        ERROR_CODES.usage,
        `the embedded stack in ${dir} already runs on ${running.brokers} and ${running.registryUrl}, not on the port${moved.length > 1 ? 's' : ''} asked for: stop it first (LOOPGUARD_STACK_DIR=${dir} node ${packageFile('scripts/stack.mjs')} down), or drop ${moved.map((k) => `--${k}-port`).join(' and ')}`,
      );
    return running;
  }
  requireJavaAndMaven();
  const ports = await choosePorts(chosen);
  const { child, env } = await superviseStack(dir, signal, ports);
  if (signal.aborted || env === null) {
    await stopSupervisor(child);
    await stackScript('down', dir);
    if (signal.aborted) throw new LoopguardError(ERROR_CODES.usage, 'interrupted while the embedded Kafka was starting; stopped it again');
    fail(`the embedded Kafka and schema registry did not start (exit ${child.exitCode}; the stack: lines above say why)`);
  }
  return handle(dir, env!, child, ports.notes);
}
