// loopguard's say on one MCP session's tool calls: asked before each call, told each outcome.
// Every rule (thresholds, shadow mode, a run ended by loopguard, the failure policy) is the
// SDK's; this only turns its verdict into what an MCP client reads, in the shape it asked for
// (a result, or a task for a task-augmented call, whose outcome is its final result).
import type { Result } from '@modelcontextprotocol/sdk/types.js';
import type { LoopguardRunner, RunRef, ToolOutcome, ToolVerdict } from '../../sdk/runner.js';
import type { Logger } from '../../topology/logger.js';
import { blockedResult, outcomeOfError, outcomeOfResult, withWarning, type ToolResult } from './results.js';
import { taskOf, TaskBook } from './tasks.js';

export interface ToolCallParams {
  readonly name: string;
  readonly arguments?: Record<string, unknown>;
  /** On a task-augmented call (MCP tasks): the client asks for a task now and the result later. */
  readonly task?: { readonly ttl?: number };
}

type Call = Parameters<LoopguardRunner['afterToolCall']>[0];
type Forward = () => Promise<Result>;

const TASK_REQUESTS = new Set(['tasks/get', 'tasks/result', 'tasks/cancel']);

export class ToolGuard {
  private readonly tasks = new TaskBook<Call>();

  constructor(
    private readonly runner: Promise<LoopguardRunner>,
    readonly run: RunRef,
    private readonly log: Logger,
  ) {}

  /** The proxy's answer to a client's request: tool calls and task requests pass here, the rest is forwarded as it came. */
  request(req: { readonly method: string; readonly params?: Record<string, unknown> }, forward: Forward): Promise<Result> {
    if (req.method === 'tools/call') return this.call(req.params as unknown as ToolCallParams, forward as () => Promise<ToolResult>);
    const taskId = req.params?.taskId;
    if (TASK_REQUESTS.has(req.method) && typeof taskId === 'string') return this.taskRequest(req.method, taskId, forward);
    return forward();
  }

  /** Runs `call` unless loopguard blocks it; publishes its outcome; adds a warning meant for the model. */
  async call(params: ToolCallParams, call: () => Promise<ToolResult>): Promise<ToolResult> {
    const runner = await this.runner;
    const input = { ...this.run, toolName: params.name, args: params.arguments ?? {} };
    const verdict = await runner.beforeToolCall(input);
    this.report(params.name, verdict);
    if (verdict.decision === 'block') {
      const blocked = blockedResult(verdict.message ?? `[loopguard] "${params.name}" was not run.`);
      return params.task !== undefined ? this.tasks.block(blocked, new Date()) : blocked;
    }
    const done = { ...input, toolCallId: verdict.toolCallId };
    const warning = verdict.decision === 'warn' && verdict.notify && verdict.message !== null ? verdict.message : undefined;
    let result: ToolResult;
    try {
      result = await call();
    } catch (e) {
      await this.publish(runner, done, outcomeOfError(e));
      throw e;
    }
    const task = params.task !== undefined ? taskOf(result) : undefined;
    if (task !== undefined) {
      // The tool's result comes with `tasks/result`: the outcome, and the warning, wait for it.
      this.tasks.started(task.taskId, done, warning);
      return result;
    }
    await this.publish(runner, done, outcomeOfResult(result));
    return warning !== undefined ? withWarning(result, warning) : result;
  }

  /**
   * `tasks/get`, `tasks/result`, `tasks/cancel`: answered here for the proxy's own tasks (blocked
   * calls); otherwise forwarded, and watched for the end of a task the proxy waits on: its
   * result, its failure (an error outcome) or its cancellation (no outcome).
   */
  private async taskRequest(method: string, taskId: string, forward: Forward): Promise<Result> {
    if (this.tasks.owns(taskId)) return this.tasks.answer(method, taskId);
    let answer: Result;
    try {
      answer = await forward();
    } catch (e) {
      if (method === 'tasks/result') await this.settle(taskId, outcomeOfError(e));
      throw e;
    }
    if (method === 'tasks/result') {
      const warning = await this.settle(taskId, outcomeOfResult(answer));
      return warning !== undefined ? withWarning(answer, warning) : answer;
    }
    if (answer.status === 'failed') await this.settle(taskId, { error: { message: typeof answer.statusMessage === 'string' ? answer.statusMessage : 'the task failed' } });
    if (answer.status === 'cancelled') this.tasks.settle(taskId);
    return answer;
  }

  /** Publishes the outcome of the call `taskId` belongs to, once; returns its warning. */
  private async settle(taskId: string, outcome: ToolOutcome): Promise<string | undefined> {
    const pending = this.tasks.settle(taskId);
    if (pending === undefined) return undefined;
    await this.publish(await this.runner, pending.call, outcome);
    return pending.warning;
  }

  private async publish(runner: LoopguardRunner, call: Call, outcome: ToolOutcome) {
    // Awaited: the next call of the run must reach loopguard after this outcome, not before it.
    await runner.afterToolCall(call, outcome).catch((e: unknown) => this.log.warn({ err: e, tool: call.toolName }, 'could not publish the tool outcome'));
  }

  private report(tool: string, v: ToolVerdict): void {
    const at = { tool, toolCallId: v.toolCallId, detector: v.detector, count: v.count, answeredBy: v.answeredBy };
    if (v.wouldHave !== null)
      this.log.warn(
        { ...at, wouldHave: { decision: v.wouldHave.decision, detector: v.wouldHave.detector, count: v.wouldHave.count } },
        'shadow mode: loopguard would have stopped this call',
      );
    else if (v.decision === 'block') this.log.warn(at, 'tool call blocked');
    else if (v.decision === 'warn') this.log.info({ ...at, notify: v.notify }, 'tool call warned');
    else if (v.answeredBy !== 'loopguard') this.log.warn(at, 'loopguard did not answer: call allowed (fail-open)');
  }
}
