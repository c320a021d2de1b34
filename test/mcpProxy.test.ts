// `loopguard mcp-proxy` driven by the real MCP SDK client, in front of a real MCP server written
// with the SDK (test/helpers/mcpCountingServer.mjs, which counts the calls it receives), with a
// real broker, registry and `loopguard run`.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  type CallToolResult,
  type LoggingMessageNotification,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { toolEventCodec } from '../schemas/codecs.js';
import { collectDecisions, infraEnv, lg, lgOk, ready, session, waitFor, world, type World } from './helpers/harness.js';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const SERVER = join(ROOT, 'test', 'helpers', 'mcpCountingServer.mjs');
const dir = mkdtempSync(join(tmpdir(), 'loopguard-mcp-'));
const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

/** Warn at 3, block at 5; end the run after 2 blocks (§4.2). */
const policy = { tools: { loopDetection: { enabled: true, warningThreshold: 3, criticalThreshold: 5 } } };
const escalation = { toolPolicy: { escalation: { abortAfterBlocks: 2 } } };

let files = 0;
/** A count file for one server: the lines it appended (its pid first, then one per tool call). */
function counter() {
  const file = join(dir, `count-${files++}.txt`);
  const lines = () => readFileSync(file, 'utf8').trim().split('\n');
  return { file, calls: (tool: string) => lines().filter((l) => l === tool).length, pid: () => Number(lines()[0]!.slice('pid:'.length)) };
}

const ROOTS = [{ uri: 'file:///work/project', name: 'project' }];

async function connected(transport: StdioClientTransport): Promise<Client> {
  const client = new Client({ name: 'proxy-test', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: ROOTS }));
  clients.push(client);
  await client.connect(transport);
  return client;
}

interface Proxied {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  readonly stderr: () => string;
}

/** The client, talking to `loopguard mcp-proxy … -- node mcpCountingServer.mjs <count file>`. */
async function throughProxy(w: World, countFile: string, flags: string[], server = ['node', SERVER, countFile]): Promise<Proxied> {
  const transport = new StdioClientTransport({
    command: 'node',
    args: [CLI, 'mcp-proxy', '--config', w.configFile, ...flags, '--', ...server],
    env: { ...(process.env as Record<string, string>), ...infraEnv(), LOG_LEVEL: 'info' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (d) => (stderr += d));
  return { client: await connected(transport), transport, stderr: () => stderr };
}

/** The same client, talking to the server directly. */
function direct(countFile: string): Promise<Client> {
  return connected(new StdioClientTransport({ command: 'node', args: [SERVER, countFile], stderr: 'pipe' }));
}

const read = (client: Client) => client.callTool({ name: 'read', arguments: { path: 'src/a.ts' } }) as Promise<CallToolResult>;

const gone = (pid: number) => {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
};

/** The tool events the proxy published, read from the beginning for as long as the test runs. */
async function toolEvents(w: World): Promise<Array<Record<string, unknown>>> {
  const { kafka, catalog } = session(w);
  const events: Array<Record<string, unknown>> = [];
  const consumer = kafka.groupConsumer(`${w.name}-events`, { topics: [w.config.topics.toolEvents], fromBeginning: true, readCommitted: false });
  onTestFinished(() => consumer.stop());
  await consumer.run({
    onBatch: async (b) => {
      for (const r of b.records) events.push(await catalog.decode(r.value, toolEventCodec));
      return b.records.at(-1)?.offset;
    },
  });
  return events;
}

async function started(w: World) {
  await lgOk(['topics', 'create', '--config', w.configFile]);
  await ready(lg(['run', '--config', w.configFile]));
}

describe('loopguard mcp-proxy', () => {
  it('blocks the repeated call at the documented count, the server receiving none after it, and ends the run by escalation', async () => {
    const w = world('mcp-block', policy, 3, escalation);
    await started(w);
    const decisions = await collectDecisions(w);
    const count = counter();
    const { client } = await throughProxy(w, count.file, ['--failure', 'closed', '--timeout-ms', '15000', '--session', 'desk:alice']);
    const plain = await read(await direct(counter().file));

    const results: CallToolResult[] = [];
    for (let i = 0; i < 7; i++) results.push(await read(client));
    // §2.5 with warning 3 / critical 5: the 4th identical call is warned (count 3), the 6th —
    // its 5 predecessors all returned the same — is blocked (count 5), and so is every retry.
    expect(results.slice(0, 3)).toEqual([plain, plain, plain]);
    const toolDecisions = () => [...decisions.byId.values()].filter((d) => d.type === 'tool_decision');
    await waitFor('the warning and the two blocks', () => toolDecisions().filter((d) => d.decision !== 'allow').length >= 4);
    const warn = toolDecisions().find((d) => d.decision === 'warn' && d.notify === true)!;
    expect(warn).toMatchObject({ detector: 'generic_repeat', count: 3 });
    expect(results[3]).toEqual({ ...plain, content: [...plain.content, { type: 'text', text: warn.message }] });
    expect(results[4]).toEqual(plain); // the warning is shown once
    const block = toolDecisions().find((d) => d.decision === 'block')!;
    expect(block).toMatchObject({ detector: 'generic_repeat', count: 5 });
    expect(results[5]).toEqual({ isError: true, content: [{ type: 'text', text: block.message }] });
    expect(results[6]).toMatchObject({ isError: true });
    expect(count.calls('read')).toBe(5);

    // The second block escalated (§4.2): every later call of the run is blocked, whatever the tool.
    await waitFor('the run_abort', () => [...decisions.byId.values()].some((d) => d.type === 'run_abort'));
    const abort = [...decisions.byId.values()].find((d) => d.type === 'run_abort')!;
    expect(abort).toMatchObject({ detector: 'block_escalation', count: 2 });
    const echo = (await client.callTool({ name: 'echo', arguments: { text: 'hi' } })) as CallToolResult;
    expect(echo).toEqual({ isError: true, content: [{ type: 'text', text: expect.stringContaining('block_escalation') }] });
    expect(count.calls('echo')).toBe(0);
  });

  it('starts a new run after a quiet period, so a session loopguard ended recovers without restarting the client', async () => {
    const w = world('mcp-quiet', policy, 3, escalation);
    await started(w);
    const events = await toolEvents(w);
    const count = counter();
    const { client } = await throughProxy(w, count.file, ['--failure', 'closed', '--timeout-ms', '15000', '--new-run-after', '3']);
    // Blocked at the 6th and 7th: the second block ends the run (§4.2), and every later call of it is blocked.
    for (let i = 0; i < 7; i++) await read(client);
    expect(count.calls('read')).toBe(5);
    const echo = () => client.callTool({ name: 'echo', arguments: { text: 'hi' } }) as Promise<CallToolResult>;
    expect(await echo()).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('block_escalation') }] });
    // The quiet period is time itself: nothing else to wait for.
    await delay(3_200);
    expect(await echo()).toEqual({ content: [{ type: 'text', text: 'hi' }], structuredContent: { text: 'hi' } });
    expect(count.calls('echo')).toBe(1);
    await waitFor(
      'the ended run and the new one',
      () => events.some((e) => e.type === 'run_end') && events.filter((e) => e.type === 'tool_call' && e.toolName === 'echo').length === 2,
    );
    const [ended] = events.filter((e) => e.type === 'run_end');
    const [blocked, ran] = events.filter((e) => e.type === 'tool_call' && e.toolName === 'echo');
    expect(blocked!.runId).toBe(ended!.runId);
    expect(ran!.runId).not.toBe(ended!.runId);
  });

  it('sends each call with the loopKey its tool definition gives: openrouter/loopKey, loopguard/loopKey over it', async () => {
    const w = world('mcp-keys', { tools: { loopDetection: { enabled: true, profile: 'early' } } });
    await started(w);
    const count = counter();
    const { client } = await throughProxy(w, count.file, ['--failure', 'closed', '--timeout-ms', '15000']);
    await client.listTools();
    const fetched: CallToolResult[] = [];
    // Only the url makes a fetch_page call what it is: the 3rd, with the same result, is blocked (the early preset, §7).
    for (let nonce = 0; nonce < 3; nonce++) fetched.push((await client.callTool({ name: 'fetch_page', arguments: { url: 'https://a.example', nonce } })) as CallToolResult);
    expect(fetched.map((r) => r.isError === true)).toEqual([false, false, true]);
    expect(fetched[2]!.content).toEqual([{ type: 'text', text: expect.stringContaining('no_progress') }]);
    // loopguard/loopKey: false exempts `now`, though OpenRouter's key would make every call the same.
    for (let i = 0; i < 4; i++) expect(((await client.callTool({ name: 'now', arguments: { zone: 'UTC' } })) as CallToolResult).isError).toBeUndefined();
    expect([count.calls('fetch_page'), count.calls('now')]).toEqual([2, 4]);
  });

  it('passes other tools, resources, prompts, logging and the server’s own requests through unchanged', async () => {
    const w = world('mcp-pass', policy);
    await started(w);
    const { client } = await throughProxy(w, counter().file, ['--failure', 'closed', '--timeout-ms', '15000']);
    const plain = await direct(counter().file);
    expect(client.getServerVersion()).toEqual(plain.getServerVersion());
    expect(client.getServerCapabilities()).toEqual(plain.getServerCapabilities());
    expect(client.getInstructions()).toEqual(plain.getInstructions());
    const both = async <T>(f: (c: Client) => Promise<T>) => {
      const [viaProxy, straight] = await Promise.all([f(client), f(plain)]);
      expect(viaProxy).toEqual(straight);
      return viaProxy;
    };
    expect((await both((c) => c.listTools())).tools.map((t) => t.name)).toEqual(['read', 'echo', 'roots', 'work', 'crash', 'fetch_page', 'now']);
    await both((c) => c.callTool({ name: 'echo', arguments: { text: 'héllo' } }));
    await both((c) => c.listResources());
    await both((c) => c.listResourceTemplates());
    expect(await both((c) => c.readResource({ uri: 'note://readme' }))).toMatchObject({ contents: [{ text: 'Counting server notes.' }] });
    await both((c) => c.readResource({ uri: 'note://42' }));
    await both((c) => c.listPrompts());
    expect(await both((c) => c.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }))).toMatchObject({ messages: [{ content: { text: 'Say hello to Ada.' } }] });
    await both((c) => c.setLoggingLevel('debug'));
    // Progress of a call, and the server's log messages, reach the client as they would directly.
    const heard = new Map<Client, { progress: Progress[]; logs: LoggingMessageNotification['params'][] }>();
    for (const c of [client, plain]) {
      const h = { progress: [] as Progress[], logs: [] as LoggingMessageNotification['params'][] };
      heard.set(c, h);
      c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void h.logs.push(n.params));
    }
    await both((c) => c.callTool({ name: 'work', arguments: { steps: 3 } }, undefined, { onprogress: (p) => heard.get(c)!.progress.push(p) }));
    await waitFor('the log messages', () => heard.get(client)!.logs.length > 0 && heard.get(plain)!.logs.length > 0);
    expect(heard.get(client)).toEqual(heard.get(plain));
    expect(heard.get(client)!.progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(heard.get(client)!.logs).toEqual([{ level: 'info', data: 'worked 3 steps' }]);
    // An unknown tool is the server's to refuse, through the proxy as directly.
    await both((c) => c.callTool({ name: 'nope', arguments: {} }));
    // The server asks the client for its roots while answering a call.
    const roots = (await both((c) => c.callTool({ name: 'roots', arguments: {} }))) as CallToolResult;
    expect(JSON.parse((roots.content[0] as { text: string }).text)).toEqual(ROOTS);
  });

  it('gives the client a clear error when the server crashes, then exits, leaving nothing running', async () => {
    const w = world('mcp-crash', policy);
    await started(w);
    const count = counter();
    const { client, transport, stderr } = await throughProxy(w, count.file, ['--failure', 'closed', '--timeout-ms', '15000']);
    const proxyPid = transport.pid!;
    const error = await client.callTool({ name: 'crash', arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).message).toContain(`the MCP server \`node ${SERVER} ${count.file}\` exited with code 3`);
    await waitFor('the proxy to exit', () => gone(proxyPid));
    expect(gone(count.pid())).toBe(true);
    expect(stderr()).toContain(`loopguard: the MCP server \`node ${SERVER} ${count.file}\` exited with code 3\n`);
  });

  it('names a server that cannot be started', async () => {
    const w = world('mcp-spawn', policy);
    await lgOk(['topics', 'create', '--config', w.configFile]);
    const error = await throughProxy(w, '', ['--failure', 'open'], ['no-such-mcp-server-xyz', '--flag']).catch((e: unknown) => e);
    expect(String((error as Error).message)).toMatch(/cannot start the MCP server: the MCP server `no-such-mcp-server-xyz --flag` .*ENOENT/);
  });

  it('exits when the client goes away, or on SIGTERM, ending the server and the run', async () => {
    const w = world('mcp-close', policy);
    await started(w);
    const events = await toolEvents(w);
    const sessions = [];
    for (const agent of ['reviewer', 'ops']) {
      const count = counter();
      const proxied = await throughProxy(w, count.file, ['--failure', 'closed', '--timeout-ms', '15000', '--agent', agent]);
      expect((await read(proxied.client)).isError).toBeUndefined();
      sessions.push({ agent, count, pid: proxied.transport.pid!, client: proxied.client });
    }
    const [closed, signalled] = sessions;
    await closed!.client.close();
    process.kill(signalled!.pid, 'SIGTERM');
    for (const s of sessions) {
      await waitFor(`the ${s.agent} proxy to exit`, () => gone(s.pid));
      await waitFor(`the ${s.agent} server to exit`, () => gone(s.count.pid()));
      // The session's run ended in loopguard too: one run_end with the run id of its calls.
      await waitFor(`the ${s.agent} run_end`, () => events.some((e) => e.type === 'run_end' && e.agentId === s.agent));
      const runEnd = events.find((e) => e.type === 'run_end' && e.agentId === s.agent)!;
      expect(runEnd).toMatchObject({ sessionKey: 'mcp:proxy-test' });
      expect(events.find((e) => e.type === 'tool_call' && e.agentId === s.agent)).toMatchObject({ sessionKey: 'mcp:proxy-test', runId: runEnd.runId, toolName: 'read' });
    }
    expect(new Set(events.filter((e) => e.type === 'run_end').map((e) => e.runId)).size).toBe(2);
  });

  it('exits when the client goes away, or on SIGTERM, while the server is still starting, ending the server', async () => {
    const w = world('mcp-early', policy);
    await lgOk(['topics', 'create', '--config', w.configFile]);
    const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const ways = [(p: ChildProcess) => p.stdin!.end(), (p: ChildProcess) => p.kill('SIGTERM')];
    for (const leave of ways) {
      const count = counter();
      // A server slow to start (as `npx -y` fetching it): its pid is written at once, it answers seconds later.
      const slow = ['sh', '-c', `echo pid:$$ >> "$1"; sleep 3; exec node "${SERVER}" "$1"`, 'sh', count.file];
      const proxy = spawn('node', [CLI, 'mcp-proxy', '--config', w.configFile, '--failure', 'open', '--', ...slow], {
        env: { ...process.env, ...infraEnv() },
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      let exited = false;
      proxy.once('exit', () => (exited = true));
      onTestFinished(() => void proxy.kill('SIGKILL'));
      proxy.stdin!.write(`${JSON.stringify(initialize)}\n`);
      await waitFor('the server to be starting', () => existsSync(count.file) && readFileSync(count.file, 'utf8').startsWith('pid:'));
      leave(proxy);
      await waitFor('the proxy to exit', () => exited, 30_000);
      await waitFor('the server to exit', () => gone(count.pid()), 15_000);
    }
  });

  it('ends cleanly when the client goes away, or on SIGTERM, while the server never answers its initialize, ending the server', async () => {
    const w = world('mcp-mute', policy);
    await lgOk(['topics', 'create', '--config', w.configFile]);
    const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const ways = [(p: ChildProcess) => p.stdin!.end(), (p: ChildProcess) => p.kill('SIGTERM')];
    for (const leave of ways) {
      const count = counter();
      // A server that starts and never says a word.
      const mute = ['sh', '-c', 'echo pid:$$ >> "$1"; exec node -e "setInterval(() => {}, 1000)"', 'sh', count.file];
      const proxy = spawn('node', [CLI, 'mcp-proxy', '--config', w.configFile, '--failure', 'open', '--', ...mute], {
        env: { ...process.env, ...infraEnv() },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stderr = '';
      proxy.stderr!.on('data', (d) => (stderr += d));
      let code: number | null | undefined;
      proxy.once('exit', (c) => (code = c));
      onTestFinished(() => void proxy.kill('SIGKILL'));
      proxy.stdin!.write(`${JSON.stringify(initialize)}\n`);
      await waitFor('the server to be started', () => existsSync(count.file) && readFileSync(count.file, 'utf8').startsWith('pid:'));
      leave(proxy);
      await waitFor('the proxy to exit', () => code !== undefined);
      // The client left: a clean end (code 0), not the server's handshake timing out (code 1).
      expect({ code, stderr }).toEqual({ code: 0, stderr: expect.not.stringContaining('loopguard: ') });
      await waitFor('the server to exit', () => gone(count.pid()), 15_000);
    }
  });

  it('follows --failure when loopguard does not answer: open runs the call, closed blocks it', async () => {
    const w = world('mcp-failure', policy);
    await lgOk(['topics', 'create', '--config', w.configFile]); // no `loopguard run`
    const open = counter();
    const viaOpen = await throughProxy(w, open.file, ['--failure', 'open', '--timeout-ms', '300']);
    const plain = await read(await direct(counter().file));
    expect(await read(viaOpen.client)).toEqual(plain);
    expect(open.calls('read')).toBe(1);
    expect(viaOpen.stderr()).toContain('fail-open');

    const closed = counter();
    const viaClosed = await throughProxy(w, closed.file, ['--failure', 'closed', '--timeout-ms', '300']);
    expect(await read(viaClosed.client)).toEqual({
      isError: true,
      content: [{ type: 'text', text: expect.stringMatching(/did not answer in 300 ms and this runner fails closed/) }],
    });
    expect(closed.calls('read')).toBe(0);
  });
});
