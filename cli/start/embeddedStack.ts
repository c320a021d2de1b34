// The Kafka broker and schema registry `start` runs when no broker is configured: the
// jar-based stack of scripts/stack.mjs (Apache Kafka in KRaft mode and Apicurio Registry, from
// Maven Central, on free loopback ports), in a folder of the user's cache. A stack already
// running there is reused and left running; one started here is stopped by `stop`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES, LoopguardError } from '../../topology/errors.js';
import { packageFile } from '../packageInfo.js';

export interface EmbeddedStack {
  readonly dir: string;
  readonly brokers: string;
  readonly registryUrl: string;
  /** True when this process started it (and `stop` stops it). */
  readonly started: boolean;
  readonly pids: { readonly kafka: number | null; readonly registry: number | null };
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
function stackScript(cmd: 'up' | 'down' | 'status', dir: string, signal?: AbortSignal): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [packageFile('scripts/stack.mjs'), cmd], {
      env: { ...process.env, LOOPGUARD_STACK_DIR: dir },
      stdio: ['ignore', 'pipe', cmd === 'status' ? 'ignore' : 'inherit'],
      signal,
    });
    let stdout = '';
    child.stdout!.on('data', (d) => {
      stdout += d;
    });
    child.once('error', (e) => {
      if (e.name !== 'AbortError') reject(e);
    });
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

function handle(dir: string, env: Record<string, string>, started: boolean): EmbeddedStack {
  const brokers = env.KAFKA_BROKERS;
  const registryUrl = env.SCHEMA_REGISTRY_URL;
  if (!brokers || !registryUrl) fail(`the embedded stack in ${dir} gave no KAFKA_BROKERS / SCHEMA_REGISTRY_URL`);
  let stopped: Promise<void> | undefined;
  return {
    dir,
    brokers: brokers!,
    registryUrl: registryUrl!,
    started,
    pids: { kafka: pidIn(dir, 'kafka'), registry: pidIn(dir, 'registry') },
    stop: () => (stopped ??= started ? stackScript('down', dir).then(() => undefined) : Promise.resolve()),
  };
}

/**
 * The stack in `dir`: the running one, or a new one. If `signal` aborts while it starts, what
 * was started is stopped again before this rejects.
 */
export async function ensureStack(dir: string, signal: AbortSignal): Promise<EmbeddedStack> {
  if ((await stackScript('status', dir)).code === 0 && existsSync(join(dir, 'env'))) {
    return handle(dir, envOf(readFileSync(join(dir, 'env'), 'utf8')), false);
  }
  requireJavaAndMaven();
  const up = await stackScript('up', dir, signal);
  if (signal.aborted || up.code !== 0) {
    await stackScript('down', dir);
    if (signal.aborted) throw new LoopguardError(ERROR_CODES.usage, 'interrupted while the embedded Kafka was starting; stopped it again');
    fail(`the embedded Kafka and schema registry did not start (exit ${up.code}; the stack: lines above say why)`);
  }
  return handle(dir, envOf(up.stdout), true);
}
