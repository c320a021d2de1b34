#!/usr/bin/env node
// A real MCP server, written with the SDK's tasks API, for the proxy's task tests: `build` must
// be called as a task, and every task is a new build: its result says the same text every time
// ("built <target>") and carries the build's number in structuredContent, as a CI tool's does.
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod';

const server = new McpServer({ name: 'task-server', version: '1.0.0' }, { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore: new InMemoryTaskStore() });

let builds = 0;
server.experimental.tasks.registerToolTask(
  'build',
  { description: 'Builds a target (a task: poll it for the result)', inputSchema: { target: z.string() }, execution: { taskSupport: 'required' } },
  {
    createTask: async ({ target }, extra) => {
      const task = await extra.taskStore.createTask({ ttl: 60_000, pollInterval: 20 });
      const build = ++builds;
      // The build finishes after the task is handed out, as real work does.
      setImmediate(() => void extra.taskStore.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: `built ${target}` }], structuredContent: { build } }));
      return { task };
    },
    getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
    getTaskResult: async (_args, extra) => extra.taskStore.getTaskResult(extra.taskId),
  },
);

await server.connect(new StdioServerTransport());
