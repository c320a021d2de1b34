import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { blockedResult } from './results.js';
import { MAX_TASKS, TaskBook, taskOf } from './tasks.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A client of a server that answers every task-augmented call as the proxy answers a blocked one. */
async function blockingServer(book: TaskBook<string>): Promise<Client> {
  const server = new Server({ name: 'blocking', version: '1.0.0' }, { capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } } } } });
  server.fallbackRequestHandler = async (req) => {
    if (req.method === 'tools/call') return book.block(blockedResult('[loopguard] Blocked: read repeated 5 times'), new Date(0)) as never;
    return book.answer(req.method, String(req.params?.taskId)) as never;
  };
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: 'user', version: '1.0.0' }, { capabilities: { tasks: {} } });
  await client.connect(a);
  closers.push(
    () => client.close(),
    () => server.close(),
  );
  return client;
}

describe('a blocked task-augmented call', () => {
  it('is a completed task the client SDK accepts, whose result is the block', async () => {
    const client = await blockingServer(new TaskBook());
    const seen: Array<{ type: string; task?: { status: string; statusMessage?: string }; result?: CallToolResult; error?: Error }> = [];
    for await (const m of client.experimental.tasks.callToolStream({ name: 'read', arguments: { path: 'a' } }, undefined, { task: {} })) seen.push(m as never);
    expect(seen.map((m) => m.type)).toEqual(['taskCreated', 'taskStatus', 'result']);
    expect(seen[0]!.task).toMatchObject({ status: 'completed', statusMessage: '[loopguard] Blocked: read repeated 5 times' });
    expect(seen[2]!.result).toMatchObject({ isError: true, content: [{ type: 'text', text: '[loopguard] Blocked: read repeated 5 times' }] });
  });

  it('cannot be cancelled, and another task id is not the proxy’s', async () => {
    const book = new TaskBook<string>();
    const client = await blockingServer(book);
    const { task } = book.block(blockedResult('blocked'), new Date(0));
    expect(book.owns(task.taskId)).toBe(true);
    expect(book.owns('server-task-1')).toBe(false);
    await expect(client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/terminal status: completed/);
    await expect(client.experimental.tasks.getTask('server-task-1')).rejects.toThrow(McpError);
  });
});

describe('the tasks a proxy waits on', () => {
  it('gives each task’s call once, and forgets the oldest beyond its bound', () => {
    const book = new TaskBook<string>();
    for (let i = 0; i <= MAX_TASKS; i++) book.started(`t${i}`, `call ${i}`, i === 5 ? 'careful' : undefined);
    expect(book.settle('t0')).toBeUndefined(); // the oldest, forgotten
    expect(book.settle('t5')).toEqual({ call: 'call 5', warning: 'careful' });
    expect(book.settle('t5')).toBeUndefined();
    expect(book.settle(`t${MAX_TASKS}`)).toEqual({ call: `call ${MAX_TASKS}`, warning: undefined });
  });
  it('keeps the newest blocked tasks only', () => {
    const book = new TaskBook<string>();
    const first = book.block(blockedResult('b'), new Date(0)).task.taskId;
    for (let i = 0; i < MAX_TASKS; i++) book.block(blockedResult('b'), new Date(0));
    expect(book.owns(first)).toBe(false);
  });
  it('reads a CreateTaskResult, and nothing else, as a task', () => {
    expect(taskOf({ task: { taskId: 't1', status: 'working' } })).toMatchObject({ taskId: 't1' });
    for (const r of [{ content: [] }, { task: null }, { task: { taskId: 1 } }, undefined]) expect(taskOf(r)).toBeUndefined();
  });
});
