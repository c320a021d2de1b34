// loopguard for LangChain.js agents (`langchain` 1, `createAgent`): one middleware. `wrapToolCall`
// asks loopguard before each call: a blocked call is answered with a ToolMessage holding
// loopguard's message instead of running the tool; a warning to notify is added to the tool's
// message; each executed call's output or error is published. `beforeModel` ends a run loopguard
// has ended (`jumpTo: 'end'`); `afterAgent` publishes the run's end. Every decision is
// loopguard's (the runner's): nothing here judges a call.
import { randomUUID } from 'node:crypto';
import { ToolMessage } from '@langchain/core/messages';
import { createMiddleware } from 'langchain';
import { z } from 'zod';
import type { LoopguardRunner, RunRef, WouldHaveReport } from '../../sdk/index.js';

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
    // The invocation's run id lives in the agent's state, so concurrent invocations stay apart.
    stateSchema: z.object({ loopguardRunId: z.string().optional() }),
    beforeAgent: () => ({ loopguardRunId: randomUUID() }),
    beforeModel: {
      canJumpTo: ['end'],
      hook: async (state, runtime) => {
        const run = runOf(state, runtime);
        if (runner.abortOf(run) === undefined) return undefined;
        await runner.runEnded(run);
        return { jumpTo: 'end' };
      },
    },
    wrapToolCall: async (request, handler) => {
      const run = runOf(request.state, request.runtime);
      const { id, name, args } = request.toolCall;
      const call = { ...run, toolName: name, args, toolCallId: id ?? randomUUID() };
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
      await runner.afterToolCall(call, answer.status === 'error' ? { error: answer.text } : { result: answer.content });
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
