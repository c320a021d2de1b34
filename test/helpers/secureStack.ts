// A secured broker and registry of a test file's own: `node scripts/stack.mjs up --secure` in a
// temporary folder (SASL_SSL with SCRAM users, the standard authorizer denying by default, the
// README's ACLs, the registry on HTTPS), stopped and removed by `stop`. Artifacts come from the
// shared stack cache, so nothing is fetched twice.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const STACK = join(ROOT, 'scripts', 'stack.mjs');

/** The stack's users: scripts/stack/secure.mjs USERS. */
export type StackUser = 'admin' | 'processor' | 'runner' | 'dispatcher' | 'runner-b';

export interface SecureStack {
  readonly brokers: string;
  readonly registryUrl: string;
  readonly caFile: string;
  /** KAFKA_BROKERS, SCHEMA_REGISTRY_URL, KAFKA_SSL_CA_FILE, SCHEMA_REGISTRY_CA_FILE. */
  readonly env: Readonly<Record<string, string>>;
  /** KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD of a user. */
  user(name: StackUser): Readonly<Record<string, string>>;
  password(name: StackUser): string;
  stop(): void;
}

const envFile = (file: string): Record<string, string> =>
  Object.fromEntries(
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

/** Starts the stack without blocking the event loop (other set-up, a gateway, runs meanwhile). */
export async function startSecureStack(): Promise<SecureStack> {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-secure-'));
  const env = {
    ...process.env,
    LOOPGUARD_STACK_DIR: dir,
    LOOPGUARD_STACK_CACHE: process.env.LOOPGUARD_STACK_CACHE ?? join(process.env.LOOPGUARD_STACK_DIR ?? join(ROOT, '.stack'), 'cache'),
  };
  const stop = () => {
    spawnSync('node', [STACK, 'down'], { env, stdio: 'ignore', timeout: 120_000 });
    rmSync(dir, { recursive: true, force: true });
  };
  const up = spawn('node', [STACK, 'up', '--secure'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  up.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => up.once('exit', resolve));
  if (code !== 0) {
    stop();
    throw new Error(`node scripts/stack.mjs up --secure exited ${code}:\n${stderr}`);
  }
  const vars = envFile(join(dir, 'env'));
  const users = (name: StackUser) => envFile(join(dir, 'users', `${name}.env`));
  return {
    brokers: vars.KAFKA_BROKERS!,
    registryUrl: vars.SCHEMA_REGISTRY_URL!,
    caFile: vars.KAFKA_SSL_CA_FILE!,
    env: vars,
    user: users,
    password: (name) => users(name).KAFKA_SASL_PASSWORD!,
    stop,
  };
}
