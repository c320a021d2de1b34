// A broker and registry the fault tests may restart and freeze. The shared infrastructure is
// only theirs to hurt when it is the jar stack this run started or found (scripts/stack.mjs);
// otherwise (explicit KAFKA_BROKERS, Docker) they start a private jar stack in a temporary
// folder, which needs Java and Maven. Without those the fault tests fail, naming what is missing:
// they never skip (.ci/run checks both before the tests start).
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InfraEnv } from './harness.js';

const STACK = join(import.meta.dirname, '..', '..', 'scripts', 'stack.mjs');

export type FaultCommand = 'restart-kafka' | 'stop-kafka' | 'start-kafka' | 'freeze-registry' | 'thaw-registry';

export type FaultPlan = { readonly kind: 'shared'; readonly env: InfraEnv } | { readonly kind: 'private' };

export interface FaultStack {
  readonly env: InfraEnv;
  /**
   * Resolves once the fault is in place. Asynchronous: a test's event loop goes on meanwhile
   * (a blocked loop let a gateway's HTTP reply go unread while Kafka restarted, and fail).
   */
  inject(cmd: FaultCommand): Promise<void>;
  stop(): void;
}

const runs = (cmd: string, args: string[]) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 30_000 });
  return r.error === undefined && r.status === 0;
};

export function planFaults(infraKind: string, shared: InfraEnv): FaultPlan {
  if (infraKind === 'jar-stack') return { kind: 'shared', env: shared };
  const missing = [
    ['java', '-version'],
    ['mvn', '-v'],
  ]
    .filter(([cmd, arg]) => !runs(cmd!, [arg!]))
    .map(([cmd]) => cmd);
  if (missing.length === 0) return { kind: 'private' };
  throw new Error(
    `the fault tests need a broker they may restart: the ${infraKind} broker is not one, and ${missing.join(' and ')} (needed for a private jar stack) did not run; install them`,
  );
}

/** `stackCommand`, without blocking the event loop. */
function stackCommandAsync(cmd: string, stackDir: string | undefined, timeout: number): Promise<void> {
  const env = stackDir === undefined ? process.env : { ...process.env, LOOPGUARD_STACK_DIR: stackDir };
  return new Promise((resolve, reject) =>
    execFile('node', [STACK, cmd], { encoding: 'utf8', env, timeout }, (err, _stdout, stderr) =>
      err ? reject(new Error(`node scripts/stack.mjs ${cmd} failed (${err.message}):\n${stderr}`)) : resolve(),
    ),
  );
}

function stackCommand(cmd: string, stackDir: string | undefined, timeout: number): string {
  const env = stackDir === undefined ? process.env : { ...process.env, LOOPGUARD_STACK_DIR: stackDir };
  const r = spawnSync('node', [STACK, cmd], { encoding: 'utf8', env, timeout });
  if (r.status !== 0) throw new Error(`node scripts/stack.mjs ${cmd} failed (exit ${r.status}${r.error ? `, ${r.error.message}` : ''}):\n${r.stderr}`);
  return r.stdout;
}

export function startFaultStack(plan: FaultPlan): FaultStack {
  if (plan.kind === 'shared') {
    // The stack's own folder is whatever globalSetup used (LOOPGUARD_STACK_DIR or .stack).
    return {
      env: plan.env,
      inject: (cmd) => stackCommandAsync(cmd, undefined, 180_000),
      stop: () => {},
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-faults-'));
  try {
    stackCommand('up', dir, 600_000);
  } catch (e) {
    stackCommand('down', dir, 120_000);
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const vars = Object.fromEntries(
    readFileSync(join(dir, 'env'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split('=', 2) as [string, string]),
  );
  return {
    env: { KAFKA_BROKERS: vars.KAFKA_BROKERS!, SCHEMA_REGISTRY_URL: vars.SCHEMA_REGISTRY_URL! },
    inject: (cmd) => stackCommandAsync(cmd, dir, 180_000),
    stop: () => {
      try {
        stackCommand('down', dir, 120_000);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
