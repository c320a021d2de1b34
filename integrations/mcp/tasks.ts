// Task-augmented tool calls (MCP tasks). A `tools/call` that carries `task` is answered at once
// with a task (`CreateTaskResult`), and the tool's result comes later, from `tasks/result`. The
// outcome loopguard compares is that final result, so the proxy remembers which call each task
// belongs to until its result (or its failure) passes through. A call loopguard blocks is answered
// in the shape the client asked for: a task of the proxy's own, already completed, whose result
// is the block; the proxy answers `tasks/get`, `tasks/result` and `tasks/cancel` for it.
import { randomUUID } from 'node:crypto';
import { ErrorCode, McpError, RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from './results.js';

/** At most this many tasks are remembered of each kind; the oldest is forgotten first. */
export const MAX_TASKS = 1_000;

export interface Task {
  readonly taskId: string;
  readonly status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  readonly ttl: number | null;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  readonly statusMessage?: string;
}

/** A `CreateTaskResult`: what a server answers a task-augmented call with. */
export function taskOf(result: unknown): Task | undefined {
  const task = (result as { task?: unknown } | undefined)?.task;
  return typeof task === 'object' && task !== null && typeof (task as Task).taskId === 'string' ? (task as Task) : undefined;
}

/** A call whose task the server is running: what its outcome is published for. */
export interface PendingTask<C> {
  readonly call: C;
  /** loopguard's warning for the call, shown with the task's result. */
  readonly warning: string | undefined;
}

interface BlockedTask {
  readonly task: Task;
  readonly result: ToolResult;
}

/** Insertion-ordered and bounded: the oldest entry goes when a new one would exceed MAX_TASKS. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= MAX_TASKS) map.delete(map.keys().next().value!);
  map.set(key, value);
}

export class TaskBook<C> {
  private readonly pending = new Map<string, PendingTask<C>>();
  private readonly blocked = new Map<string, BlockedTask>();

  /** The server started `taskId` for `call`. */
  started(taskId: string, call: C, warning: string | undefined): void {
    remember(this.pending, taskId, { call, warning });
  }

  /** The call of `taskId`, taken once: its outcome is published at most once. */
  settle(taskId: string): PendingTask<C> | undefined {
    const p = this.pending.get(taskId);
    this.pending.delete(taskId);
    return p;
  }

  /**
   * A blocked call's answer to a task-augmented `tools/call`: a task completed with the block as
   * its result, as a task whose tool returned `isError` is (the client reads the block from
   * `tasks/result`, and its status message carries it too). Kept until MAX_TASKS newer ones.
   */
  block(result: ToolResult & { content: ReadonlyArray<{ text: string }> }, now: Date): { task: Task } {
    const at = now.toISOString();
    const task: Task = { taskId: `loopguard-${randomUUID()}`, status: 'completed', ttl: null, createdAt: at, lastUpdatedAt: at, statusMessage: result.content[0]!.text };
    remember(this.blocked, task.taskId, { task, result });
    return { task };
  }

  /** Whether `taskId` is one of the proxy's own tasks (a blocked call). */
  owns(taskId: string): boolean {
    return this.blocked.has(taskId);
  }

  /** The proxy's answer to `tasks/get`, `tasks/result` or `tasks/cancel` for one of its own tasks. */
  answer(method: string, taskId: string): Record<string, unknown> {
    const own = this.blocked.get(taskId);
    if (own === undefined) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
    switch (method) {
      case 'tasks/get':
        return { ...own.task };
      case 'tasks/result':
        return { ...own.result, _meta: { [RELATED_TASK_META_KEY]: { taskId } } };
      case 'tasks/cancel':
        throw new McpError(ErrorCode.InvalidParams, `Cannot cancel task in terminal status: ${own.task.status}`);
      default:
        throw new McpError(ErrorCode.MethodNotFound, `${method} is not a task request`);
    }
  }
}
