// loopguard for the Vercel AI SDK (`ai` 7): the settings a generateText / streamText call (or a
// ToolLoopAgent) takes, for one run. A call loopguard blocks is denied through the SDK's own tool
// approval, so the model receives loopguard's message as the denied call's reason; a warning
// to notify is added to the next step's messages; each tool's output (all of it) or error is published; a
// run loopguard ends stops through the SDK's stop condition; the call's end is the run's end.
// The calls of one step (one model response) share a `turnId` (docs/behaviour.md §6.4): the
// step's number, as prepareStep hears it before the model is asked. The SDK asks about a step's
// calls one at a time, so they are published as they come, not all before the first runs.
// Every decision is loopguard's (the runner's): nothing here judges a call.
import type { ModelMessage, StopCondition, ToolApprovalStatus, ToolSet } from 'ai';
import type { LoopguardRunner, RunRef, WouldHaveReport } from '../../sdk/index.js';
import { outcomeOf, type ToolOutputLike } from './outcome.js';

export interface AiSdkGuardOptions {
  /** loopguard's `runId`. Default: the AI SDK's `callId` of this generateText / streamText call. */
  readonly runId?: string;
  /** The conversation, loopguard's `sessionKey`. Default: the run id. */
  readonly sessionKey?: string;
  /** The agent, loopguard's `agentId` (it picks the agent's policy). */
  readonly agentId?: string;
  /** Shadow mode: a call enforce mode would have warned or blocked ran anyway; here is what it would have done. */
  readonly onWouldHave?: (report: WouldHaveReport) => void;
}

export type { WouldHaveReport };

interface ToolCallLike {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
}

/** The options to spread into generateText / streamText / new ToolLoopAgent for one run. */
export interface AiSdkGuardSettings {
  toolApproval(options: { toolCall: ToolCallLike }): Promise<ToolApprovalStatus>;
  prepareStep(options: { messages: ModelMessage[]; stepNumber?: number }): { messages: ModelMessage[] } | undefined;
  onStart(event: { callId: string }): void;
  onToolExecutionEnd(event: { toolCall: ToolCallLike; toolOutput: ToolOutputLike }): Promise<void>;
  onEnd(event: unknown): Promise<void>;
}

export interface AiSdkGuard {
  readonly settings: AiSdkGuardSettings;
  /** Add to the call's `stopWhen`: true once loopguard has ended the run. */
  readonly stopWhen: StopCondition<ToolSet>;
  /** The run as loopguard knows it (available once the call has started). */
  run(): RunRef;
  /** Tell loopguard the run compacted its context (arms the post-compaction guard). */
  compacted(): Promise<void>;
}

export function loopguardForAiSdk(runner: LoopguardRunner, options: AiSdkGuardOptions = {}): AiSdkGuard {
  let callId: string | undefined;
  /** The step whose model response is being answered, once prepareStep has run. */
  let step: number | undefined;
  const notices: string[] = [];
  const run = (): RunRef => {
    const runId = options.runId ?? callId;
    const sessionKey = options.sessionKey ?? runId;
    if (sessionKey === undefined) throw new Error('loopguard: the AI SDK run has not started: pass `...guard.settings` to generateText / streamText, or give a sessionKey');
    return { sessionKey, runId, agentId: options.agentId };
  };
  const settings: AiSdkGuardSettings = {
    onStart: (event) => {
      callId = event.callId;
    },
    toolApproval: async ({ toolCall }) => {
      const turnId = step === undefined ? undefined : `step-${step}`;
      const verdict = await runner.beforeToolCall({ ...run(), toolName: toolCall.toolName, args: toolCall.input, toolCallId: toolCall.toolCallId, ...(turnId ? { turnId } : {}) });
      if (verdict.wouldHave !== null) options.onWouldHave?.({ run: run(), toolName: toolCall.toolName, toolCallId: toolCall.toolCallId, wouldHave: verdict.wouldHave });
      if (verdict.decision === 'block') return { type: 'denied', reason: verdict.message ?? `[loopguard] "${toolCall.toolName}" was not run.` };
      if (verdict.decision === 'warn' && verdict.notify && verdict.message !== null) notices.push(verdict.message);
      return undefined; // not-applicable: the tool runs as it would without loopguard
    },
    // A warning reaches the model with the next step's input, after the tool results it is about.
    prepareStep: ({ messages, stepNumber }) => {
      step = stepNumber ?? (step ?? -1) + 1;
      if (notices.length === 0) return undefined;
      const text = notices.splice(0).join('\n\n');
      return { messages: [...messages, { role: 'user', content: [{ type: 'text', text }] }] };
    },
    onToolExecutionEnd: async ({ toolCall, toolOutput }) => {
      await runner.afterToolCall({ ...run(), toolName: toolCall.toolName, args: toolCall.input, toolCallId: toolCall.toolCallId }, outcomeOf(toolOutput));
    },
    onEnd: () => runner.runEnded(run()),
  };
  return {
    settings,
    stopWhen: () => runner.abortOf(run()) !== undefined,
    run,
    compacted: () => runner.compacted(run()),
  };
}
