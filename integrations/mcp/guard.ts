// loopguard's say on one MCP session's tool calls: asked before each call, told each outcome.
// Every rule (thresholds, shadow mode, a run ended by loopguard, the failure policy) is the
// SDK's; this only turns its verdict into what an MCP client reads, in the shape it asked for
// (a result, or a task for a task-augmented call, whose outcome is its final result), and sends
// each call with the loopKey its server's tool definition gives (loopKeys.ts).
import type { Result } from '@modelcontextprotocol/sdk/types.js';
import type { LoopguardRunner, ToolOutcome, ToolVerdict } from '../../sdk/runner.js';
import type { LoopKey } from '../../processors/toolLoop/policy.js';
import type { Logger } from '../../topology/logger.js';
import { blockedResult, outcomeOfError, outcomeOfResult, withWarning, type ToolResult } from './results.js';
import type { SessionRuns } from './runs.js';
import { taskOf, TaskBook } from './tasks.js';
import { ToolLoopKeys } from './loopKeys.js';

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
  /** The call identity the server's tool definitions give (§7.1), from the `tools/list` answers passing through. */
  readonly loopKeys = new ToolLoopKeys();

  constructor(
    private readonly runner: LoopguardRunner,
    readonly runs: SessionRuns,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    /** The config's loopKey of a tool, when it has one: the server's own, from `tools/list`, wins. */
    private readonly configured?: (toolName: string) => LoopKey | undefined,
  ) {}

  /** The proxy's answer to a client's request: tool calls and task requests pass here, the rest is forwarded as it came. */
  request(req: { readonly method: string; readonly params?: Record<string, unknown> }, forward: Forward): Promise<Result> {
    if (req.method === 'tools/call') return this.call(req.params as unknown as ToolCallParams, forward as () => Promise<ToolResult>);
    if (req.method === 'tools/list') return this.listed(req.params, forward);
    const taskId = req.params?.taskId;
    if (TASK_REQUESTS.has(req.method) && typeof taskId === 'string') return this.taskRequest(req.method, taskId, forward);
    return forward();
  }

  /** Forwards a `tools/list` as it came and learns the loopKeys of the tools its answer lists. */
  private async listed(params: Record<string, unknown> | undefined, forward: Forward): Promise<Result> {
    const answer = await forward();
    this.loopKeys.learn(params, answer);
    return answer;
  }

  /**
   * Runs `call` unless loopguard blocks it; publishes its outcome; adds a warning meant for
   * the model. Waits for loopguard at most its `timeoutMs`; the outcome is sent in the background.
   */
  async call(params: ToolCallParams, call: () => Promise<ToolResult>): Promise<ToolResult> {
    const loopKey = this.loopKeys.of(params.name) ?? this.configured?.(params.name);
    const input = { ...this.runs.callAt(this.now()), toolName: params.name, args: params.arguments ?? {}, ...(loopKey === undefined ? {} : { loopKey }) };
    const verdict = await this.runner.beforeToolCall(input);
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
      this.published(done, outcomeOfError(e));
      throw e;
    }
    const task = params.task !== undefined ? taskOf(result) : undefined;
    if (task !== undefined) {
      // The tool's result comes with `tasks/result`: the outcome, and the warning, wait for it.
      this.runs.touch(this.now());
      this.tasks.started(task.taskId, done, warning);
      return result;
    }
    this.published(done, outcomeOfResult(result));
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
      if (method === 'tasks/result') this.settle(taskId, outcomeOfError(e));
      throw e;
    }
    if (method === 'tasks/result') {
      const warning = this.settle(taskId, outcomeOfResult(answer));
      return warning !== undefined ? withWarning(answer, warning) : answer;
    }
    if (answer.status === 'failed') this.settle(taskId, { error: { message: typeof answer.statusMessage === 'string' ? answer.statusMessage : 'the task failed' } });
    if (answer.status === 'cancelled') this.tasks.settle(taskId);
    return answer;
  }

  /** Publishes the outcome of the call `taskId` belongs to, once; returns its warning. */
  private settle(taskId: string, outcome: ToolOutcome): string | undefined {
    const pending = this.tasks.settle(taskId);
    if (pending === undefined) return undefined;
    this.published(pending.call, outcome);
    return pending.warning;
  }

  /** Queued in order: the run's next call reaches loopguard after this outcome. */
  private published(call: Call, outcome: ToolOutcome): void {
    this.runs.touch(this.now());
    this.runner.afterToolCall(call, outcome).catch((e: unknown) => this.log.warn({ err: e, tool: call.toolName }, 'could not publish the tool outcome'));
  }

  private report(tool: string, v: ToolVerdict): void {
    const at = { tool, toolCallId: v.toolCallId, detector: v.detector, count: v.count, answeredBy: v.answeredBy };
    if (v.wouldHave !== null)
      this.log.warn(
        { ...at, wouldHave: { decision: v.wouldHave.decision, detector: v.wouldHave.detector, count: v.wouldHave.count } },
        'shadow mode: loopguard would have stopped this call',
      );
    else if (v.decision === 'block') this.log[v.answeredBy === 'fail-closed' && !this.runner.reachable ? 'debug' : 'warn'](at, 'tool call blocked');
    else if (v.decision === 'warn') this.log.info({ ...at, notify: v.notify }, 'tool call warned');
    // While loopguard is unreachable the runner says so, at a bounded rate: not once per call.
    else if (v.answeredBy !== 'loopguard') this.log[this.runner.reachable ? 'warn' : 'debug'](at, 'loopguard did not answer: call allowed (fail-open)');
  }
}
