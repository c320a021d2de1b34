// loopguard on a secured broker, set up as a cluster admin would and as the README says: the
// project's own stack started secured (scripts/stack.mjs up --secure: SASL_SSL with SCRAM-SHA-512,
// the standard authorizer denying by default, the registry over HTTPS) with one principal per role
// and the README's ACLs, for two tenants (`loopguard.` and `tenant-b.`). One stack for the whole
// file. Every role works with its own credentials and ACLs only — `loopguard run` at least once
// and exactly once, a runner and a dispatcher through the SDK, the MCP proxy, the OpenClaw plugin
// in a real gateway — and every refusal is said in one `loopguard:` line at once, by a process
// that then ends by itself, while the processor's decisions for the runs it guards stay what
// they would have been.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoopguardDispatcher, LoopguardRunner, type ClientOptions, type ToolVerdict } from '../sdk/index.js';
import { configFrom } from '../topology/config.js';
import { ERROR_CODES } from '../topology/errors.js';
import { createLogger } from '../topology/logger.js';
import { connectKafka } from '../topology/runtime/connect.js';
import type { KafkaSession } from '../topology/runtime/port.js';
import { decisionCodec } from '../schemas/codecs.js';
import { SchemaCatalog } from '../schemas/registry.js';
import { lg, ready, testKafkaClient, waitFor, type Run } from './helpers/harness.js';
import { gateway, installOpenClaw, script, startGateway, turn, type RunningGateway } from './helpers/openclaw.js';
import { startScriptedModel, type ScriptedModel } from './helpers/scriptedModel.mjs';
import { startSecureStack, type SecureStack, type StackUser } from './helpers/secureStack.js';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const SDK = join(ROOT, 'dist', 'sdk', 'index.js');
const MCP_SERVER = join(ROOT, 'test', 'helpers', 'mcpCountingServer.mjs');
const TURN_MS = 240_000;
/** A refusal is said at once: well before a client's own retries would give up (kafkajs ~20 s, librdkafka 30 s). */
const AT_ONCE_MS = 5_000;

const dir = mkdtempSync(join(tmpdir(), 'loopguard-secure-it-'));
let stack: SecureStack;
let model: ScriptedModel;
let plugin: RunningGateway;
let refusedPlugin: RunningGateway;
/**
 * The OpenClaw gateways run on kafkajs whatever the setting: their Node 24 host cannot load this
 * machine's librdkafka build (the plugin falls back to kafkajs and says so). On the librdkafka
 * pass they would only repeat the kafkajs run, so they start, and their case runs, on kafkajs only.
 */
const withGateways = testKafkaClient() === 'kafkajs';
let processor: Run;
/** Every decision, by id, read by the admin from the beginning for as long as the file runs. */
const decisions = new Map<string, Record<string, unknown>>();
const sessions: KafkaSession[] = [];
const stops: Array<() => Promise<void>> = [];

/** Warn at the 2nd identical call, block the 3rd; the 3rd bot message of a pair is suppressed. */
const rules = {
  tools: { loopDetection: { enabled: true, warningThreshold: 1, criticalThreshold: 2 } },
  channels: { defaults: { botLoopProtection: { maxEventsPerWindow: 2, windowSeconds: 3600, cooldownSeconds: 3600 } } },
};
const TENANT_B = {
  toolEvents: 'tenant-b.tool-events',
  channelEvents: 'tenant-b.channel-events',
  verdicts: 'tenant-b.verdicts',
  deadLetter: 'tenant-b.dead-letter',
  changelogPrefix: 'tenant-b.',
};

function configFile(name: string, loopguard: Record<string, unknown> = {}): { file: string; raw: Record<string, unknown> } {
  const raw = {
    ...rules,
    loopguard: { topics: { partitions: 3 }, consumer: { sessionTimeoutMs: 8000 }, http: { port: 0, host: '127.0.0.1' }, log: { level: 'info' }, ...loopguard },
  };
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(raw));
  return { file, raw };
}
/** Tenant A: loopguard's default topic names and group, as the stack's ACLs name them. */
const tenantA = configFile('tenant-a');
const tenantAExactlyOnce = configFile('tenant-a-eos', { processing: { guarantee: 'exactly_once' } });
const tenantB = configFile('tenant-b', { topics: { ...TENANT_B, partitions: 3 }, consumer: { groupId: 'tenant-b.loopguard', sessionTimeoutMs: 8000 } });
/** A tenant nobody granted anything. */
const tenantC = configFile('tenant-c', {
  topics: {
    toolEvents: 'tenant-c.tool-events',
    channelEvents: 'tenant-c.channel-events',
    verdicts: 'tenant-c.verdicts',
    deadLetter: 'tenant-c.dead-letter',
    changelogPrefix: 'tenant-c.',
  },
});

/** A command's environment: the secured stack (CA files included) and a user's credentials. */
const as = (user: StackUser, extra: Record<string, string> = {}) => ({ ...stack.env, ...stack.user(user), LOOPGUARD_KAFKA_CLIENT: testKafkaClient(), ...extra });

/** SDK options of a user, TLS with the stack's CA. */
const sdkOptions = (user: StackUser, password = stack.password(user)): ClientOptions => ({
  brokers: [stack.brokers],
  schemaRegistryUrl: stack.registryUrl,
  schemaRegistryCaFile: stack.caFile,
  ssl: { caFile: stack.caFile },
  sasl: { mechanism: 'scram-sha-512', username: user, password },
  kafkaClient: testKafkaClient(),
  failure: 'closed',
  timeoutMs: 15_000,
});

/** A Kafka session of a user, for what no loopguard role does (a forged verdict) and what the admin checks. */
function sessionOf(user: StackUser, raw: Record<string, unknown> = tenantA.raw): KafkaSession {
  const s = connectKafka(configFrom(raw, as(user)).settings, createLogger({ log: { level: 'silent', redact: true } }, 'test'), '-test');
  sessions.push(s);
  return s;
}

/** What the admin sees of a topic: its records, as the sum of its partitions' ends. */
const recordsIn = async (topic: string) => [...(await sessionOf('admin').watermarks(topic)).values()].reduce((n, m) => n + m.high, 0);

interface Ended {
  readonly code: number | null;
  readonly ms: number;
  readonly stderr: string;
}

/** Runs a process to its end (it must end by itself), timing it from spawn; `stdin` is written to it, and left open. */
function ended(command: string, args: string[], env: Record<string, string | undefined>, stdin?: string): Promise<Ended> {
  const t0 = Date.now();
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'] });
  if (stdin !== undefined) child.stdin!.write(stdin);
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, ms: Date.now() - t0, stderr });
    }),
  );
}

/** `loopguard:` lines of a command's stderr (its other lines are JSON logs). */
const loopguardLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('loopguard:'));

/** A Node process that connects an SDK client and reports how that went, without calling process.exit: it ends only when nothing is left running. */
function sdkProcess(kind: 'runner' | 'dispatcher', options: object): Promise<Ended> {
  const code = `
    const sdk = await import(${JSON.stringify(SDK)});
    const Client = ${kind === 'runner' ? 'sdk.LoopguardRunner' : 'sdk.LoopguardDispatcher'};
    try { await (await Client.connect(JSON.parse(process.env.OPTIONS))).close(); }
    catch (e) { process.stderr.write('loopguard: ' + e.message + '\\n'); process.exitCode = 1; }`;
  return ended('node', ['--input-type=module', '-e', code], { OPTIONS: JSON.stringify(options) });
}

/** Expects one `loopguard:` line saying `what`, from a process that failed and ended by itself at once. */
function refusedAtOnce(r: Ended, what: RegExp): void {
  expect(r.code, r.stderr).toBe(1);
  expect(loopguardLines(r.stderr), r.stderr).toEqual([expect.stringMatching(what)]);
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  expect(r.ms, r.stderr).toBeLessThan(AT_ONCE_MS);
}

/** The 3 calls of a looping run: allow, warn (count 1), block (count 2). */
async function loop(runner: LoopguardRunner, runId: string, calls = 3): Promise<ToolVerdict[]> {
  const verdicts: ToolVerdict[] = [];
  for (let i = 0; i < calls; i++) {
    const call = { sessionKey: `secure:${runId}`, runId, toolName: 'read', args: { path: 'src/a.ts' } };
    const v = await runner.beforeToolCall(call);
    verdicts.push(v);
    if (v.decision !== 'block') await runner.afterToolCall({ ...call, toolCallId: v.toolCallId }, { result: 'same' });
  }
  return verdicts;
}

const pluginConfig = (password: string) => ({
  brokers: [stack.brokers],
  schemaRegistryUrl: stack.registryUrl,
  schemaRegistryCaFile: stack.caFile,
  ssl: { caFile: stack.caFile },
  sasl: { mechanism: 'scram-sha-512', username: 'runner', password },
  kafkaClient: testKafkaClient(),
  failure: 'closed',
  timeoutMs: 5000,
});

beforeAll(async () => {
  if (withGateways) installOpenClaw();
  [model, stack] = await Promise.all([startScriptedModel(), startSecureStack()]);
  // The gateways start (tens of seconds of OpenClaw's own) while topics are made and the processor starts.
  const gateways = withGateways
    ? Promise.all([
        gateway('plugin', { modelPort: model.port, loopguard: pluginConfig(stack.password('runner')) }),
        gateway('refused', { modelPort: model.port, loopguard: pluginConfig('not-the-password') }),
      ]).then(([ok, refused]) => Promise.all([startGateway(ok), startGateway(refused)]))
    : Promise.resolve(undefined);
  gateways.catch(() => undefined);
  // Topics are created by the admin only: no other principal may CREATE.
  for (const r of await Promise.all([tenantA, tenantB].map((t) => ended('node', [CLI, 'topics', 'create', '--config', t.file], as('admin'))))) expect(r.code, r.stderr).toBe(0);
  processor = lg(['run', '--config', tenantA.file], as('processor'));
  const [started] = await Promise.all([gateways, ready(processor)]);
  if (started) [plugin, refusedPlugin] = started;
  const catalog = SchemaCatalog.connect({ url: stack.registryUrl, caFile: stack.caFile });
  const reader = sessionOf('admin').groupConsumer('loopguard.verdicts-test-reader', { topics: ['loopguard.verdicts'], fromBeginning: true });
  stops.push(() => reader.stop());
  await reader.run({
    onBatch: async (b) => {
      for (const r of b.records) {
        const d = await catalog.decode(r.value, decisionCodec);
        decisions.set(d.id as string, d);
      }
      return b.records.at(-1)?.offset;
    },
  });
}, 600_000);

// Everything that talks to the stack stops before it does; the gateways at once (each may take
// OpenClaw's shutdown budget).
afterAll(async () => {
  await Promise.all([plugin?.stop(), refusedPlugin?.stop()]);
  for (const stop of stops) await stop().catch(() => undefined);
  if (processor?.child.exitCode === null) processor.child.kill('SIGKILL');
  for (const s of sessions) await s.close().catch(() => undefined);
  await model?.close();
  stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const decisionsOfRun = (runId: string) =>
  [...decisions.values()].filter((d) => d.type === 'tool_decision' && d.key === runId).sort((a, b) => (a.count as number) - (b.count as number));

describe('loopguard on a secured broker, each role with its own credentials and ACLs', () => {
  it('a runner and a dispatcher through the SDK', async () => {
    const runner = await LoopguardRunner.connect(sdkOptions('runner'));
    try {
      const verdicts = await loop(runner, 'sdk-run');
      expect(verdicts.map((v) => [v.decision, v.answeredBy])).toEqual([
        ['allow', 'loopguard'],
        ['warn', 'loopguard'],
        ['block', 'loopguard'],
      ]);
    } finally {
      await runner.close();
    }
    const dispatcher = await LoopguardDispatcher.connect(sdkOptions('dispatcher'));
    try {
      const message = (i: number) => ({
        type: 'bot_message' as const,
        channel: 'slack' as const,
        accountId: 'T0ACME',
        conversationId: 'C0OPS',
        senderId: i % 2 ? 'B0TRIAGE' : 'B0DEPLOY',
        receiverId: i % 2 ? 'B0DEPLOY' : 'B0TRIAGE',
        ts: Date.now() + i,
        eventId: `secure-${i}`,
      });
      const verdicts = [];
      for (let i = 0; i < 3; i++) verdicts.push(await dispatcher.botMessage(message(i)));
      expect(verdicts.map((v) => [v.deliver, v.answeredBy])).toEqual([
        [true, 'loopguard'],
        [true, 'loopguard'],
        [false, 'loopguard'],
      ]);
    } finally {
      await dispatcher.close();
    }
  });

  it("the MCP proxy, with the runner's credentials", async () => {
    const count = join(dir, 'mcp-count.txt');
    const transport = new StdioClientTransport({
      command: 'node',
      args: [CLI, 'mcp-proxy', '--config', tenantA.file, '--failure', 'closed', '--timeout-ms', '15000', '--', 'node', MCP_SERVER, count],
      env: { ...(process.env as Record<string, string>), ...as('runner') },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'secure-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const results: CallToolResult[] = [];
      for (let i = 0; i < 3; i++) results.push((await client.callTool({ name: 'read', arguments: { path: 'src/a.ts' } })) as CallToolResult);
      expect(results.map((r) => r.isError === true)).toEqual([false, false, true]);
      expect(
        readFileSync(count, 'utf8')
          .trim()
          .split('\n')
          .filter((l) => l === 'read'),
      ).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it.runIf(withGateways)(
    "the OpenClaw plugin, with the runner's credentials, in one short turn; with a wrong password its call gets the failure policy's answer and its log says why",
    async () => {
      const runs = () => new Set([...decisions.values()].filter((d) => d.type === 'tool_decision').map((d) => d.key as string));
      const before = runs();
      // Both gateways' turns at once: each is mostly OpenClaw's own first-turn work.
      const [t, refused] = await Promise.all([
        turn(plugin, 'secure-1', `Read hello.txt. ${script([{ tool: 'read', args: { path: 'hello.txt' }, times: 3 }])}`, TURN_MS),
        turn(refusedPlugin, 'refused-1', `Read hello.txt. ${script([{ tool: 'read', args: { path: 'hello.txt' }, times: 1 }])}`, TURN_MS),
      ]);
      expect(t, t.text).toMatchObject({ status: 200, text: 'FINAL: saw 3 tool results.' });
      const turnRun = () => [...runs()].find((k) => !before.has(k));
      await waitFor('the turn’s 3 decisions', () => turnRun() !== undefined && decisionsOfRun(turnRun()!).length === 3);
      expect(decisionsOfRun(turnRun()!).map((d) => [d.toolName, d.decision])).toEqual([
        ['read', 'allow'],
        ['read', 'warn'],
        ['read', 'block'],
      ]);
      // Failing closed, the refused gateway did not run the call; its log has the one line saying why.
      expect(refused, refused.text).toMatchObject({ status: 200, text: 'FINAL: saw 1 tool results.' });
      const lines = refusedPlugin
        .output()
        .split('\n')
        .filter((l) => l.includes('loopguard: cannot connect'));
      expect(lines[0], refusedPlugin.output()).toMatch(
        /loopguard: cannot connect to Kafka or the schema registry: cannot connect to Kafka at \S+: authentication failed for user runner \(SCRAM-SHA-512\)/,
      );
      expect(runs().size).toBe(before.size + 1); // nothing of the refused gateway's reached loopguard
    },
    TURN_MS + 60_000,
  );
});

describe('refusals: one clear line at once, nothing left running, nothing reaching the processor', () => {
  // A run the attacks below aim at: 1 call before them, so its next one is warned — and stays so.
  let victim: LoopguardRunner;
  let toolEventsBefore: number;
  let verdictsBefore: number;
  beforeAll(async () => {
    victim = await LoopguardRunner.connect(sdkOptions('runner'));
    expect((await loop(victim, 'victim', 1)).map((v) => v.decision)).toEqual(['allow']);
    toolEventsBefore = await recordsIn('loopguard.tool-events');
    await waitFor('the victim’s decision', () => decisionsOfRun('victim').length === 1);
    verdictsBefore = await recordsIn('loopguard.verdicts');
  });
  afterAll(() => victim?.close());

  it('no credentials: authentication required (the SDK)', async () => {
    const { sasl: _none, ...options } = sdkOptions('runner');
    refusedAtOnce(await sdkProcess('runner', options), /authentication required: the broker closed the connection after the handshake, and no SASL credentials are set/);
  });

  it('a wrong password: authentication failed (`loopguard run`, the SDK; the OpenClaw plugin above)', async () => {
    const refused = /authentication failed for user (processor|runner) \(SCRAM-SHA-512\): .*invalid credentials/;
    refusedAtOnce(await ended('node', [CLI, 'run', '--config', tenantA.file], as('processor', { KAFKA_SASL_PASSWORD: 'not-the-password' })), refused);
    refusedAtOnce(await sdkProcess('runner', sdkOptions('runner', 'not-the-password')), refused);
  });

  it('plaintext to the TLS port: TLS expected (`loopguard start`, the MCP proxy)', async () => {
    const plaintext = { KAFKA_SSL_CA_FILE: undefined, KAFKA_SSL: 'false' } as const;
    const expectsTls = /the broker expects TLS on this port, and loopguard.kafka.ssl is off/;
    refusedAtOnce(await ended('node', [CLI, 'start', '--config', tenantA.file, '--console-port', '0'], { ...as('processor'), ...plaintext }), expectsTls);
    // The proxy, while its client starts the session (and stays), learns it and ends.
    const initialize = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'secure-test', version: '1' } },
    };
    const proxy = ended(
      'node',
      [CLI, 'mcp-proxy', '--config', tenantA.file, '--failure', 'closed', '--', 'node', MCP_SERVER, join(dir, 'mcp-refused.txt')],
      { ...as('runner'), ...plaintext },
      `${JSON.stringify(initialize)}\n`,
    );
    refusedAtOnce(await proxy, expectsTls);
  });

  it('an untrusted certificate (the SDK)', async () => {
    refusedAtOnce(await sdkProcess('runner', { ...sdkOptions('runner'), ssl: true }), /TLS: the broker's certificate is not trusted/);
  });

  it('a runner writing loopguard.verdicts: not authorised to WRITE it', async () => {
    const sender = await sessionOf('runner').producer();
    const forged = sender.send([{ topic: 'loopguard.verdicts', partition: 0, key: 'victim', value: Buffer.from('a forged block') }]);
    await expect(forged).rejects.toMatchObject({
      code: ERROR_CODES.kafkaAuthorization,
      message: expect.stringMatching(/not authorised to WRITE topic loopguard\.verdicts \(Kafka user runner\)$/),
    });
  });

  it("a runner of tenant A writing tenant B's tool events or reading its verdicts, and B's runner writing A's", async () => {
    const toB = await sessionOf('runner').producer();
    await expect(toB.send([{ topic: 'tenant-b.tool-events', partition: 0, key: 'x', value: Buffer.from('x') }])).rejects.toThrow(
      /not authorised to WRITE topic tenant-b\.tool-events \(Kafka user runner\)$/,
    );
    // Through the SDK: B's tool events, or A's with B's verdicts, refused at connect, told it is
    // not authorised (not that the topics do not exist).
    const notB = (topic: string) => new RegExp(`not authorised to DESCRIBE topic tenant-b\\.${topic}, so neither to READ nor to WRITE it \\(Kafka user runner\\)`);
    refusedAtOnce(await sdkProcess('runner', { ...sdkOptions('runner'), topics: { toolEvents: TENANT_B.toolEvents } }), notB('tool-events'));
    refusedAtOnce(await sdkProcess('runner', { ...sdkOptions('runner'), topics: { verdicts: TENANT_B.verdicts } }), notB('verdicts'));
    // B's runner, aiming at A's victim run.
    const fromB = await sessionOf('runner-b').producer();
    await expect(fromB.send([{ topic: 'loopguard.tool-events', partition: 0, key: 'victim', value: Buffer.from('x') }])).rejects.toThrow(
      /not authorised to WRITE topic loopguard\.tool-events \(Kafka user runner-b\)$/,
    );
    refusedAtOnce(
      await sdkProcess('runner', sdkOptions('runner-b')),
      /not authorised to DESCRIBE topic loopguard\.verdicts, so neither to READ nor to WRITE it \(Kafka user runner-b\)/,
    );
  });

  it('a dispatcher writing tool events', async () => {
    refusedAtOnce(
      await sdkProcess('runner', sdkOptions('dispatcher')),
      /not authorised to DESCRIBE topic loopguard\.tool-events, so neither to READ nor to WRITE it \(Kafka user dispatcher\)/,
    );
    const sender = await sessionOf('dispatcher').producer();
    await expect(sender.send([{ topic: 'loopguard.tool-events', partition: 0, key: 'victim', value: Buffer.from('x') }])).rejects.toThrow(
      /not authorised to WRITE topic loopguard\.tool-events \(Kafka user dispatcher\)$/,
    );
  });

  it('`loopguard run` without the processor’s ACLs: not authorised, naming the topic', async () => {
    refusedAtOnce(
      await ended('node', [CLI, 'run', '--config', tenantA.file], as('runner')),
      /not authorised to DESCRIBE topic loopguard\.tool-loop-runs-changelog, so neither to READ nor to WRITE it \(Kafka user runner\)/,
    );
  });

  it('`topics create` by the processor: not authorised to CREATE', async () => {
    refusedAtOnce(
      await ended('node', [CLI, 'topics', 'create', '--config', tenantC.file], as('processor')),
      /not authorised to CREATE topic tenant-c\.tool-events\b.*\(Kafka user processor\)/,
    );
  });

  it('nothing of the refused clients reached the processor: the victim run goes on as it would have', async () => {
    expect(await recordsIn('loopguard.tool-events')).toBe(toolEventsBefore);
    expect(await recordsIn('loopguard.verdicts')).toBe(verdictsBefore);
    expect((await loop(victim, 'victim', 2)).map((v) => [v.decision, v.count])).toEqual([
      ['warn', 1],
      ['block', 2],
    ]);
  });
});

describe('exactly once, with the processor’s transactional ids', () => {
  it('a processor restarted exactly-once restores its state (reading the changelogs with its own restore groups) and decides on', async () => {
    processor.child.kill('SIGTERM');
    expect(await processor.exited()).toBe(0);
    const eos = lg(['run', '--config', tenantAExactlyOnce.file], as('processor'));
    await ready(eos);
    const runner = await LoopguardRunner.connect(sdkOptions('runner'));
    try {
      // The SDK's run goes on from where it was (a fresh one would be allowed): blocked at count 3 again.
      const [next] = await loop(runner, 'sdk-run', 1);
      expect(next).toMatchObject({ decision: 'block', count: 2, answeredBy: 'loopguard' });
      expect((await loop(runner, 'eos-run')).map((v) => v.decision)).toEqual(['allow', 'warn', 'block']);
    } finally {
      await runner.close();
    }
    expect(eos.output()).not.toMatch(/not authorised|refused/);
    eos.child.kill('SIGTERM');
    expect(await eos.exited()).toBe(0);
  });
});
