// loopguard for Mastra agents (`@mastra/core` 1): the options an `agent.generate` / `agent.stream`
// call takes, for one run. Mastra's tool hooks ask loopguard before each call: `beforeToolCall`
// skips a blocked call and gives the model loopguard's message as its output; `afterToolCall`
// publishes each executed call's output or error. `prepareStep`, before each model call, adds
// a warning to notify to the model's input and ends a run loopguard has ended with Mastra's
// tripwire (`abort`): the call returns with `result.tripwire` set. `onFinish` publishes the
// run's end. The calls of one step share a `turnId` (docs/behaviour.md §6.4): the step's
// number, as `prepareStep` hears it. Every decision is loopguard's (the runner's): nothing here
// judges a call.
//
// Only shapes are declared here, nothing is imported from `@mastra/core`: Mastra needs
// Node >= 22.13, and this package (and this adapter) must load without it.
import { randomUUID } from 'node:crypto';
import type { LoopguardRunner, RunRef, WouldHaveReport } from '../../sdk/index.js';
import { outcomeOf } from './outcome.js';

export interface MastraGuardOptions {
  /** loopguard's `runId`, also Mastra's `runId` of the call. Default: a new id. */
  readonly runId?: string;
  /** The conversation (e.g. the memory thread), loopguard's `sessionKey`. Default: the run id. */
  readonly sessionKey?: string;
  /** loopguard's `agentId` (it picks the agent's policy). Default: the Mastra agent's id. */
  readonly agentId?: string;
  /** Shadow mode: a call enforce mode would have warned or blocked ran anyway; here is what it would have done. */
  readonly onWouldHave?: (report: WouldHaveReport) => void;
}

export type { WouldHaveReport };

/** Mastra's `ToolHookContext`, as far as loopguard reads it. */
interface ToolHookLike {
  readonly toolName: string;
  readonly input: unknown;
  /** The tool's execution options (typed `unknown` by Mastra): its `toolCallId` is read. */
  readonly context?: unknown;
  readonly metadata?: { readonly agentId?: unknown };
}

interface ToolAfterHookLike extends ToolHookLike {
  readonly output?: unknown;
  readonly error?: unknown;
}

/** Mastra's `ProcessInputStepArgs`, as far as loopguard uses it. */
interface StepLike {
  /** The step about to ask the model (0-indexed). */
  readonly stepNumber?: number;
  readonly messageList: { add(message: { role: 'user'; content: string }, source: 'input'): unknown };
  readonly rotateResponseMessageId?: () => string;
  readonly agent?: { readonly id?: string };
  abort(reason?: string): never;
}

/** The options to spread into `agent.generate(messages, { ... })` / `agent.stream` for one run. */
export interface MastraGuardSettings {
  readonly runId: string;
  readonly hooks: {
    beforeToolCall(context: ToolHookLike): Promise<{ proceed: false; output: string } | undefined>;
    afterToolCall(context: ToolAfterHookLike): Promise<void>;
  };
  prepareStep(step: StepLike): Promise<undefined>;
  onFinish(event: unknown): Promise<void>;
}

export interface MastraGuard {
  readonly options: MastraGuardSettings;
  /** The run as loopguard knows it (the agent is known once the run has started). */
  run(): RunRef;
  /** Tell loopguard the run compacted its context (arms the post-compaction guard). */
  compacted(): Promise<void>;
}

export function loopguardForMastra(runner: LoopguardRunner, options: MastraGuardOptions = {}): MastraGuard {
  const runId = options.runId ?? randomUUID();
  const sessionKey = options.sessionKey ?? runId;
  let agentId = options.agentId;
  const run = (): RunRef => ({ sessionKey, runId, agentId });
  const notices: string[] = [];
  /** The step whose model response is being answered, once prepareStep has run. */
  let step: number | undefined;
  const callOf = (hook: ToolHookLike) => {
    if (typeof hook.metadata?.agentId === 'string') agentId ??= hook.metadata.agentId;
    return { ...run(), toolName: hook.toolName, args: hook.input, toolCallId: toolCallIdOf(hook.context) ?? randomUUID() };
  };

  const settings: MastraGuardSettings = {
    runId,
    hooks: {
      beforeToolCall: async (hook) => {
        const call = callOf(hook);
        const verdict = await runner.beforeToolCall(step === undefined ? call : { ...call, turnId: `step-${step}` });
        if (verdict.wouldHave !== null) options.onWouldHave?.({ run: run(), toolName: call.toolName, toolCallId: call.toolCallId, wouldHave: verdict.wouldHave });
        if (verdict.decision === 'block') return { proceed: false, output: verdict.message ?? `[loopguard] "${call.toolName}" was not run.` };
        if (verdict.decision === 'warn' && verdict.notify && verdict.message !== null) notices.push(verdict.message);
        return undefined; // the tool runs as it would without loopguard
      },
      // Mastra calls this after the tool ran, with its output or the error it threw; a skipped call does not get here.
      afterToolCall: async (hook) => {
        await runner.afterToolCall(callOf(hook), outcomeOf(hook));
      },
    },
    prepareStep: async (next) => {
      step = next.stepNumber ?? (step ?? -1) + 1;
      agentId ??= next.agent?.id;
      const abort = runner.abortOf(run());
      if (abort !== undefined) {
        // A tripwire ends the call without its onFinish: the run's end is published here.
        await runner.runEnded(run());
        next.abort(abort.message);
      }
      // A warning reaches the model with the next step's input, after the tool results it is about.
      if (notices.length > 0) {
        next.messageList.add({ role: 'user', content: notices.splice(0).join('\n\n') }, 'input');
        next.rotateResponseMessageId?.(); // the next response is a new message, after the warning
      }
      return undefined;
    },
    onFinish: () => runner.runEnded(run()),
  };
  return { options: settings, run, compacted: () => runner.compacted(run()) };
}

function toolCallIdOf(context: unknown): string | undefined {
  const id = typeof context === 'object' && context !== null ? (context as { toolCallId?: unknown }).toolCallId : undefined;
  return typeof id === 'string' ? id : undefined;
}
