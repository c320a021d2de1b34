#!/usr/bin/env node
// A real MCP server, written with the SDK, for the proxy tests: it appends the name of every
// tool call it receives to the file given as its first argument, so a test can count what
// reached it. `read` always returns the same text (a loop with no progress); `echo` returns its
// arguments; `roots` asks the client for its roots; `work` reports
// progress and logs; `crash` exits with code 3 mid-call. `fetch_page` and `now` say which of
// their arguments make a call the same in their `_meta`: `fetch_page` only its url
// (`openrouter/loopKey`), `now` never (`loopguard/loopKey: false`, over OpenRouter's).
import { appendFileSync } from 'node:fs';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

const countFile = process.argv[2];
if (countFile === undefined) throw new Error('usage: mcpCountingServer.mjs <count file>');
const counted = (name) => appendFileSync(countFile, `${name}\n`);
counted(`pid:${process.pid}`);

const server = new McpServer({ name: 'counting-server', version: '1.0.0' }, { instructions: 'A server that counts its tool calls.', capabilities: { logging: {} } });

server.registerTool('read', { description: 'Reads a file (always the same text)', inputSchema: { path: z.string() } }, async ({ path }) => {
  counted('read');
  return { content: [{ type: 'text', text: `contents of ${path}: export const retries = 3;` }] };
});
server.registerTool('echo', { description: 'Returns its arguments', inputSchema: { text: z.string() } }, async ({ text }) => {
  counted('echo');
  return { content: [{ type: 'text', text }], structuredContent: { text } };
});
server.registerTool('roots', { description: "Lists the client's roots" }, async (extra) => {
  counted('roots');
  const roots = await extra.sendRequest({ method: 'roots/list' }, z.object({ roots: z.array(z.object({ uri: z.string(), name: z.string().optional() })) }));
  return { content: [{ type: 'text', text: JSON.stringify(roots.roots) }] };
});
server.registerTool('work', { description: 'Reports progress, then logs, while working', inputSchema: { steps: z.number() } }, async ({ steps }, extra) => {
  counted('work');
  const token = extra._meta?.progressToken;
  for (let i = 1; i <= steps && token !== undefined; i++)
    await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } });
  await server.sendLoggingMessage({ level: 'info', data: `worked ${steps} steps` });
  // A round trip before the result: the SDK hands notifications to their handlers a microtask
  // after it settles a response read in the same chunk, so a result sent right behind them
  // would end the call before its last progress reports were seen.
  await extra.sendRequest({ method: 'ping' }, EmptyResultSchema);
  return { content: [{ type: 'text', text: `done ${steps}` }] };
});
server.registerTool('crash', { description: 'Exits with code 3 while answering' }, async () => {
  counted('crash');
  process.exit(3);
});
server.registerTool(
  'fetch_page',
  { description: 'Fetches a page (always the same text)', inputSchema: { url: z.string(), nonce: z.number() }, _meta: { 'openrouter/loopKey': ['url'] } },
  async ({ url }) => {
    counted('fetch_page');
    return { content: [{ type: 'text', text: `page at ${url}` }] };
  },
);
server.registerTool(
  'now',
  { description: 'The time (the same in this test)', inputSchema: { zone: z.string() }, _meta: { 'openrouter/loopKey': ['zone'], 'loopguard/loopKey': false } },
  async () => {
    counted('now');
    return { content: [{ type: 'text', text: '12:00' }] };
  },
);
server.registerResource('readme', 'note://readme', { title: 'Read me', mimeType: 'text/plain' }, async (uri) => ({
  contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Counting server notes.' }],
}));
server.registerResource('note', new ResourceTemplate('note://{id}', { list: undefined }), { title: 'A note by id' }, async (uri, { id }) => ({
  contents: [{ uri: uri.href, text: `note ${id}` }],
}));
server.registerPrompt('greet', { description: 'Greets someone', argsSchema: { name: z.string() } }, ({ name }) => ({
  messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}.` } }],
}));

await server.connect(new StdioServerTransport());
