// Call identity from an MCP server's tool definitions (docs/behaviour.md §7.1), read off the
// `tools/list` answer of a real MCP SDK server, as the proxy forwards it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { LOOPGUARD_LOOP_KEY, loopKeyOfTool, MAX_KEYED_TOOLS, OPENROUTER_LOOP_KEY, ToolLoopKeys } from './loopKeys.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function listedBy(server: McpServer): Promise<unknown> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: 'user', version: '1.0.0' });
  await client.connect(a);
  closers.push(
    () => client.close(),
    () => server.close(),
  );
  return client.request({ method: 'tools/list' }, ResultSchema);
}

describe('loopKeys from tool definitions', () => {
  it('reads openrouter/loopKey, and loopguard/loopKey over it, from a server’s tools/list', async () => {
    const server = new McpServer({ name: 'keyed', version: '1.0.0' });
    const tool = (name: string, meta?: Record<string, unknown>) =>
      server.registerTool(name, { inputSchema: { url: z.string(), nonce: z.number() }, ...(meta ? { _meta: meta } : {}) }, async () => ({ content: [] }));
    tool('fetch_page', { [OPENROUTER_LOOP_KEY]: ['url'] });
    tool('now', { [OPENROUTER_LOOP_KEY]: [], [LOOPGUARD_LOOP_KEY]: false });
    tool('plain');
    tool('odd', { [OPENROUTER_LOOP_KEY]: 'url' });
    const keys = new ToolLoopKeys();
    keys.learn(undefined, await listedBy(server));
    expect([keys.of('fetch_page'), keys.of('now'), keys.of('plain'), keys.of('odd')]).toEqual([['url'], false, undefined, undefined]);
  });

  it('starts afresh at a first page, adds later pages, and keeps a bounded number of tools', () => {
    const keys = new ToolLoopKeys();
    const page = (...names: string[]) => ({ tools: names.map((name) => ({ name, _meta: { [OPENROUTER_LOOP_KEY]: ['id'] } })) });
    keys.learn(undefined, page('a'));
    keys.learn({ cursor: 'p2' }, page('b'));
    expect([keys.of('a'), keys.of('b')]).toEqual([['id'], ['id']]);
    keys.learn({}, page('c'));
    expect([keys.of('a'), keys.of('c')]).toEqual([undefined, ['id']]);
    keys.learn(undefined, page(...Array.from({ length: MAX_KEYED_TOOLS + 5 }, (_, i) => `t${i}`)));
    expect([keys.of('t0'), keys.of(`t${MAX_KEYED_TOOLS}`)]).toEqual([['id'], undefined]);
  });

  it('ignores a malformed key: not false or a bounded list of names, or a prototype’s', () => {
    for (const bad of [true, 'x', [1], Array.from({ length: 65 }, () => 'f'), ['x'.repeat(257)], null])
      expect(loopKeyOfTool({ name: 't', _meta: { [OPENROUTER_LOOP_KEY]: bad } })).toBeUndefined();
    expect(loopKeyOfTool(JSON.parse('{"name":"t","_meta":{"__proto__":{"openrouter/loopKey":["x"]}}}'))).toBeUndefined();
    expect(loopKeyOfTool({ name: 't', _meta: { [LOOPGUARD_LOOP_KEY]: 'bad', [OPENROUTER_LOOP_KEY]: ['id'] } })).toEqual(['id']);
  });
});
