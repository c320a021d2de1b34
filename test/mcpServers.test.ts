// `loopguard mcp-proxy` in front of real MCP servers — `@modelcontextprotocol/server-filesystem`
// and `server-everything` as published, and a task server written with the SDK's tasks API
// (test/helpers/mcpTaskServer.mjs) — driven by the real MCP SDK client, with a real broker,
// registry and `loopguard run` (warning at 3, block at 5). What these servers return beside text
// (images, embedded resources, structuredContent, a task's final result) is what loopguard must
// compare: a result that changes is progress, the same one again is not.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { hashOutcome } from '../processors/toolLoop/hashing.js';
import { toolEventCodec } from '../schemas/codecs.js';
import { wholeResult } from '../sdk/outcomes.js';
import { collectDecisions, infraEnv, lg, lgOk, ready, session, waitFor, world, type Collected, type World } from './helpers/harness.js';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const FILESYSTEM = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const TASKS = join(ROOT, 'test', 'helpers', 'mcpTaskServer.mjs');

const dir = mkdtempSync(join(tmpdir(), 'loopguard-mcp-servers-'));
const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

/** Warn at 3, block at 5: the 6th call whose 5 predecessors returned the same is blocked. */
const policy = { tools: { loopDetection: { enabled: true, warningThreshold: 3, criticalThreshold: 5 } } };

/** A client (without roots: the filesystem server keeps the directory it was given) through `loopguard mcp-proxy -- <server>`. */
async function throughProxy(w: World, server: string[], session: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: 'node',
    args: [CLI, 'mcp-proxy', '--config', w.configFile, '--failure', 'closed', '--timeout-ms', '15000', '--session', session, '--', 'node', ...server],
    env: { ...(process.env as Record<string, string>), ...infraEnv() },
    stderr: 'pipe',
  });
  transport.stderr!.on('data', () => undefined); // drained: the servers log to stderr
  const client = new Client({ name: 'servers-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(transport);
  return client;
}

type StreamMessage =
  { type: 'taskCreated' | 'taskStatus'; task: { status: string; statusMessage?: string } } | { type: 'result'; result: CallToolResult } | { type: 'error'; error: Error };

/** Calls a tool as a task, as the SDK's client does (create, poll, fetch the result), and returns what it yielded. */
async function asTask(client: Client, name: string, args: Record<string, unknown>): Promise<StreamMessage[]> {
  const seen: StreamMessage[] = [];
  for await (const m of client.experimental.tasks.callToolStream({ name, arguments: args }, undefined, { task: { ttl: 60_000 } })) seen.push(m as StreamMessage);
  return seen;
}
const resultOf = (messages: StreamMessage[]): CallToolResult => {
  const last = messages.at(-1)!;
  if (last.type !== 'result') throw new Error(`the task ended with ${JSON.stringify(last)}`);
  return last.result;
};

/** The tool events published, read from the beginning for as long as the test runs. */
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

describe('loopguard mcp-proxy in front of real MCP servers', () => {
  let w: World;
  let decisions: Collected;
  const blocks = () => [...decisions.byId.values()].filter((d) => d.type === 'tool_decision' && d.decision === 'block');
  beforeAll(async () => {
    w = world('mcp-servers', policy);
    await lgOk(['topics', 'create', '--config', w.configFile]);
    await ready(lg(['run', '--config', w.configFile]));
    decisions = await collectDecisions(w);
  });

  it('never blocks read_media_file of an image or a file that changes before every read, and blocks the 6th read of one that does not (server-filesystem)', async () => {
    const files = mkdtempSync(join(dir, 'files-'));
    const client = await throughProxy(w, [FILESYSTEM, files], 'fs:media');
    const read = (path: string) => client.callTool({ name: 'read_media_file', arguments: { path } }) as Promise<CallToolResult>;
    // A PNG's bytes (a frame of a render that goes on), and a binary file the server returns as an embedded resource.
    const frame = (i: number) => Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from(`frame ${i}`)]);
    const image = join(files, 'render.png');
    const blob = join(files, 'state.bin');
    for (let i = 0; i < 8; i++) {
      writeFileSync(image, frame(i));
      const r = await read(image);
      expect(r.isError, `image read ${i + 1}`).toBeUndefined();
      expect(r.content[0]).toEqual({ type: 'image', data: frame(i).toString('base64'), mimeType: 'image/png' });
    }
    for (let i = 0; i < 8; i++) {
      writeFileSync(blob, `state ${i}`);
      const r = await read(blob);
      expect(r.isError, `resource read ${i + 1}`).toBeUndefined();
      expect(r.content[0]).toMatchObject({ type: 'resource', resource: { blob: Buffer.from(`state ${i}`).toString('base64') } });
    }
    expect(blocks()).toEqual([]);

    // The same image, and the same resource (and structuredContent), read again and again.
    writeFileSync(join(files, 'still.png'), frame(0));
    writeFileSync(join(files, 'still.bin'), 'state 0');
    for (const path of [join(files, 'still.png'), join(files, 'still.bin')]) {
      const results: CallToolResult[] = [];
      for (let i = 0; i < 6; i++) results.push(await read(path));
      expect(results.slice(0, 5).map((r) => r.isError)).toEqual(Array(5).fill(undefined));
      expect(results[5]).toEqual({
        isError: true,
        content: [{ type: 'text', text: expect.stringContaining('[loopguard generic_repeat] Blocked: "read_media_file" has been called 5 times') }],
      });
    }
    await waitFor('the two blocks', () => blocks().length === 2);
    expect(blocks().map((d) => [d.detector, d.count])).toEqual([
      ['generic_repeat', 5],
      ['generic_repeat', 5],
    ]);
  });

  it('answers a task-augmented call it blocks with a task the SDK client accepts, completed, whose result is the block (server-everything)', async () => {
    const client = await throughProxy(w, [EVERYTHING, 'stdio'], 'everything:research');
    // The task tool is registered once the server knows the client (after `initialized`).
    await waitFor('the task tool', async () => (await client.listTools()).tools.some((t) => t.name === 'simulate-research-query'));
    const research = () => asTask(client, 'simulate-research-query', { topic: 'tool loops' });
    // Five tasks at once, each a few seconds of work with the same report at the end.
    const first = await Promise.all([1, 2, 3, 4, 5].map(research));
    for (const m of first) expect(resultOf(m).content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('# Research Report: tool loops') });
    // The call warned (count 3) gets the warning with its task's result.
    expect(first.filter((m) => JSON.stringify(resultOf(m)).includes('[loopguard generic_repeat] Warning'))).toHaveLength(1);
    const before = blocks().length;

    const sixth = await research();
    await waitFor('the block', () => blocks().length > before);
    const block = blocks().at(-1)!;
    expect(block).toMatchObject({ toolName: 'simulate-research-query', detector: 'generic_repeat', count: 5 });
    expect(sixth.map((m) => m.type)).toEqual(['taskCreated', 'taskStatus', 'result']);
    expect(sixth[0]).toMatchObject({ type: 'taskCreated', task: { status: 'completed', statusMessage: block.message } });
    expect(resultOf(sixth)).toMatchObject({ isError: true, content: [{ type: 'text', text: block.message }] });
  });

  it('publishes a task’s final result as its outcome, so tasks that each return something new are never blocked (a server using the SDK’s tasks API)', async () => {
    const events = await toolEvents(w);
    const client = await throughProxy(w, [TASKS], 'tasks:build');
    const results: CallToolResult[] = [];
    for (let i = 0; i < 8; i++) results.push(resultOf(await asTask(client, 'build', { target: 'app' })));
    // The same text every time; the build number in structuredContent is what changes.
    expect(results.map((r) => r.structuredContent)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((build) => ({ build })));
    expect(results.every((r) => r.isError === undefined)).toBe(true);
    // The outcome of each call is the task's final result, not the task that was handed out.
    const outcomes = () => events.filter((e) => e.type === 'tool_outcome' && e.toolName === 'build');
    await waitFor('the 8 outcomes', () => outcomes().length === 8);
    const expected = [1, 2, 3, 4, 5, 6, 7, 8].map(
      (build) => hashOutcome({ toolName: 'build', result: wholeResult({ content: [{ type: 'text', text: 'built app' }], structuredContent: { build } }) })!.resultHash,
    );
    expect(outcomes().map((e) => e.resultHash)).toEqual(expected);
    expect(blocks().filter((d) => d.toolName === 'build')).toEqual([]);
  });
});
