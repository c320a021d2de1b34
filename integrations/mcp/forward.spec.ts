import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, PingRequestSchema, ResultSchema, type JSONRPCMessage, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { forwardRequest } from './forward.js';

/**
 * One end of a pipe that, like stdio under load, hands over everything written since the last
 * read in one go: the reader parses the whole chunk before any microtask runs.
 */
class ChunkedTransport implements Transport {
  onmessage?: (m: JSONRPCMessage) => void;
  onclose?: () => void;
  other!: ChunkedTransport;
  private pending: JSONRPCMessage[] = [];
  private scheduled = false;
  static pair(): [ChunkedTransport, ChunkedTransport] {
    const a = new ChunkedTransport();
    const b = new ChunkedTransport();
    a.other = b;
    b.other = a;
    return [a, b];
  }
  async start(): Promise<void> {}
  async close(): Promise<void> {
    this.onclose?.();
  }
  async send(m: JSONRPCMessage): Promise<void> {
    this.other.pending.push(m);
    if (this.other.scheduled) return;
    this.other.scheduled = true;
    setTimeout(() => this.other.read(), 5);
  }
  private read(): void {
    const chunk = this.pending;
    this.pending = [];
    this.scheduled = false;
    for (const m of chunk) this.onmessage?.(m);
  }
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A client, through a forwarding hop, to a server whose `work` tool reports progress. */
async function throughHop(): Promise<Client> {
  const server = new McpServer({ name: 'worker', version: '1.0.0' });
  server.registerTool('work', { description: 'reports three steps' }, async (extra) => {
    for (let i = 1; i <= 3; i++) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: extra._meta!.progressToken!, progress: i, total: 3 } });
    return { content: [{ type: 'text', text: 'done' }] };
  });
  const [up, upServer] = InMemoryTransport.createLinkedPair();
  await server.connect(upServer);
  const hopClient = new Client({ name: 'hop', version: '1.0.0' });
  await hopClient.connect(up);
  const hop = new Server({ name: 'hop', version: '1.0.0' }, { capabilities: { tools: {} } });
  hop.fallbackRequestHandler = (req, extra) => forwardRequest(hopClient, req, extra) as never;
  const [down, downHop] = ChunkedTransport.pair();
  await hop.connect(downHop);
  const client = new Client({ name: 'user', version: '1.0.0' });
  await client.connect(down);
  closers.push(
    () => client.close(),
    () => hop.close(),
    () => hopClient.close(),
    () => server.close(),
  );
  return client;
}

describe('forwardRequest', () => {
  it('gets every progress report to the requester before the result, even when they would arrive in one chunk', async () => {
    const client = await throughHop();
    const heard: Progress[] = [];
    const errors: Error[] = [];
    client.onerror = (e) => errors.push(e);
    const result = await client.callTool({ name: 'work', arguments: {} }, undefined, { onprogress: (p) => heard.push(p) });
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(heard.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(errors).toEqual([]);
  });

  it('sends no ping when the call reported no progress', async () => {
    const client = await throughHop();
    const pings: unknown[] = [];
    client.setRequestHandler(PingRequestSchema, async (r) => (pings.push(r), {}));
    await client.callTool({ name: 'work', arguments: {} });
    expect(pings).toEqual([]);
  });

  it("gives the requester a server's JSON-RPC error as the server sent it: its code, data and message, prefixed once", async () => {
    const client = await throughHop();
    const error = await client.request({ method: 'prompts/get', params: { name: 'nope' } }, ResultSchema).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: ErrorCode.MethodNotFound, message: 'MCP error -32601: Method not found' });
  });
});
