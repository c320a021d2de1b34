// loopguard's say on one MCP session's tool calls: asked before each call, told each outcome.
// Every rule (thresholds, shadow mode, a run ended by loopguard, the failure policy) is the
// SDK's; this only turns its verdict into what an MCP client reads.
import type { LoopguardRunner, ToolVerdict } from '../../sdk/runner.js';
import type { Logger } from '../../topology/logger.js';
import { blockedResult, outcomeOfError, outcomeOfResult, withWarning, type ToolResult } from './results.js';
import type { SessionRuns } from './runs.js';

export interface ToolCallParams {
  readonly name: string;
  readonly arguments?: Record<string, unknown>;
}

export class ToolGuard {
  constructor(
    private readonly runner: LoopguardRunner,
    readonly runs: SessionRuns,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Runs `call` unless loopguard blocks it; publishes its outcome; adds a warning meant for
   * the model. Waits for loopguard at most its `timeoutMs`; the outcome is sent in the background.
   */
  async call(params: ToolCallParams, call: () => Promise<ToolResult>): Promise<ToolResult> {
    const input = { ...this.runs.callAt(this.now()), toolName: params.name, args: params.arguments ?? {} };
    const verdict = await this.runner.beforeToolCall(input);
    this.report(params.name, verdict);
    if (verdict.decision === 'block') return blockedResult(verdict.message ?? `[loopguard] "${params.name}" was not run.`);
    let result: ToolResult;
    try {
      result = await call();
    } catch (e) {
      this.published({ ...input, toolCallId: verdict.toolCallId }, outcomeOfError(e));
      throw e;
    }
    this.published({ ...input, toolCallId: verdict.toolCallId }, outcomeOfResult(result));
    return verdict.decision === 'warn' && verdict.notify && verdict.message !== null ? withWarning(result, verdict.message) : result;
  }

  /** Queued in order: the run's next call reaches loopguard after this outcome. */
  private published(call: Parameters<LoopguardRunner['afterToolCall']>[0], outcome: Parameters<LoopguardRunner['afterToolCall']>[1]): void {
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
