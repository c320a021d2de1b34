// loopguard for LangChain.js agents (`langchain` 1, `createAgent`): one middleware. `wrapToolCall`
// asks loopguard before each call: a blocked call is answered with a ToolMessage holding
// loopguard's message instead of running the tool; a warning to notify is added to the tool's
// message; each executed call's output or error is published. `beforeModel` ends a run loopguard
// has ended (`jumpTo: 'end'`) and publishes a `compaction` when `summarizationMiddleware` has
// summarised the history since; `afterAgent` publishes the run's end. The calls of one model
// response share a `turnId` (docs/behaviour.md §6.4): the number of the model call, counted by
// `beforeModel` in the agent's state. Every decision is loopguard's (the runner's): nothing here
// judges a call.
import { createHash, randomUUID } from 'node:crypto';
import { ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { createMiddleware } from 'langchain';
import { z } from 'zod';
import type { LoopguardRunner, RunRef, WouldHaveReport } from '../../sdk/index.js';
import { outcomeOf } from './outcome.js';

export interface LangChainGuardOptions {
  /** loopguard's `runId`. Default: a new id for each invocation of the agent. */
  readonly runId?: string;
  /** The conversation, loopguard's `sessionKey`. Default: the invocation's `thread_id`, else the run id. */
  readonly sessionKey?: string;
  /** loopguard's `agentId` (it picks the agent's policy). */
  readonly agentId?: string;
  /** Shadow mode: a call enforce mode would have warned or blocked ran anyway; here is what it would have done. */
  readonly onWouldHave?: (report: WouldHaveReport) => void;
}

export type { WouldHaveReport };

interface RuntimeLike {
  readonly configurable?: { readonly thread_id?: string };
}

export function loopguardMiddleware(runner: LoopguardRunner, options: LangChainGuardOptions = {}) {
  const runOf = (state: { loopguardRunId?: string }, runtime: RuntimeLike): RunRef => {
    const runId = options.runId ?? state.loopguardRunId ?? 'unknown';
    return { runId, sessionKey: options.sessionKey ?? runtime.configurable?.thread_id ?? runId, agentId: options.agentId };
  };
  return createMiddleware({
    name: 'loopguard',
    // The invocation's run id lives in the agent's state, so concurrent invocations stay apart;
    // so does the mark of the summary loopguard last saw, to notice a new summarisation.
    // So does the number of model calls so far: the tool calls of a response belong to the latest.
    stateSchema: z.object({ loopguardRunId: z.string().optional(), loopguardSummary: z.string().optional(), loopguardTurn: z.number().optional() }),
    beforeAgent: (state) => ({ loopguardRunId: randomUUID(), loopguardSummary: summaryMark(state.messages), loopguardTurn: 0 }),
    beforeModel: {
      canJumpTo: ['end'],
      hook: async (state, runtime) => {
        const run = runOf(state, runtime);
        if (runner.abortOf(run) !== undefined) {
          await runner.runEnded(run);
          return { jumpTo: 'end' };
        }
        const loopguardTurn = (state.loopguardTurn ?? 0) + 1;
        const mark = summaryMark(state.messages);
        if (mark === state.loopguardSummary) return { loopguardTurn };
        if (mark !== undefined) await runner.compacted(run);
        return { loopguardSummary: mark, loopguardTurn };
      },
    },
    wrapToolCall: async (request, handler) => {
      const run = runOf(request.state, request.runtime);
      const { id, name, args } = request.toolCall;
      const turn = request.state.loopguardTurn;
      const call = { ...run, toolName: name, args, toolCallId: id ?? randomUUID(), ...(turn ? { turnId: `turn-${turn}` } : {}) };
      const verdict = await runner.beforeToolCall(call);
      if (verdict.wouldHave !== null) options.onWouldHave?.({ run, toolName: name, toolCallId: call.toolCallId, wouldHave: verdict.wouldHave });
      if (verdict.decision === 'block') return new ToolMessage({ content: verdict.message ?? `[loopguard] "${name}" was not run.`, tool_call_id: call.toolCallId, name });
      let answer: Awaited<ReturnType<typeof handler>>;
      try {
        answer = await handler(request);
      } catch (error) {
        await runner.afterToolCall(call, { error });
        throw error;
      }
      if (!ToolMessage.isInstance(answer)) return answer; // a Command: state changes, no output to compare
      await runner.afterToolCall(call, outcomeOf(answer));
      const notice = verdict.decision === 'warn' && verdict.notify ? verdict.message : null;
      if (notice === null) return answer;
      return new ToolMessage({
        content: withNotice(answer.content, notice),
        tool_call_id: answer.tool_call_id,
        name: answer.name,
        status: answer.status,
        artifact: answer.artifact,
        id: answer.id,
      });
    },
    afterAgent: async (state, runtime) => {
      await runner.runEnded(runOf(state, runtime));
      return undefined;
    },
  });
}

/** A warning travels with the tool output it is about. */
function withNotice(content: ToolMessage['content'], notice: string): ToolMessage['content'] {
  return typeof content === 'string' ? `${content}\n\n${notice}` : [...content, { type: 'text', text: notice }];
}

/**
 * Marks the summary `summarizationMiddleware` put in place of the history (it tags it with
 * `lc_source: 'summarization'`), or undefined when there is none. Each summarisation gives a new
 * mark: its summary, and the message it kept first (the cut moves on as the history grows).
 * Listed after that middleware, loopguard sees a summary before the model call it was made for;
 * listed before it, at the next one.
 */
function summaryMark(messages: readonly BaseMessage[]): string | undefined {
  const at = messages.findIndex((m) => m.additional_kwargs?.lc_source === 'summarization');
  if (at < 0) return undefined;
  const summary = messages[at]!;
  const text = typeof summary.content === 'string' ? summary.content : JSON.stringify(summary.content);
  return createHash('sha256')
    .update(`${messages[at + 1]?.id ?? ''}\n${text}`)
    .digest('base64url');
}
