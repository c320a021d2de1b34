// loopguard for the OpenAI Agents SDK (`@openai/agents`), for one run: tool input and output
// guardrails on the run's function tools, and the run's options. A call loopguard blocks is
// rejected by the input guardrail (`rejectContent`: the tool is skipped and the model gets
// loopguard's message as its output); once loopguard has ended the run, the next call trips the
// guardrail's wire (`throwException`) and the run halts; the output guardrail publishes each
// executed tool's output; a warning to notify is added to the next model input
// (`callModelInputFilter`). The calls of one model response share a `turnId` (docs/behaviour.md
// §6.4): the number of the model call, counted by that filter. Every decision is loopguard's
// (the runner's): nothing here judges a call.
import { randomUUID } from 'node:crypto';
import type { AgentInputItem, CallModelInputFilter, Tool, ToolGuardrailFunctionOutput, ToolInputGuardrailDefinition, ToolOutputGuardrailDefinition } from '@openai/agents';
import type { LoopguardRunner, RunRef, WouldHaveReport } from '../../sdk/index.js';
import { outcomeOf } from './outcome.js';

export interface OpenAIAgentsGuardOptions {
  /** loopguard's `runId`, also the run's trace id. Default: a new trace id (`trace_<32 hex>`). */
  readonly runId?: string;
  /** The conversation, loopguard's `sessionKey`, also the trace's group id. Default: the run id. */
  readonly sessionKey?: string;
  /** loopguard's `agentId`. Default: the name of the agent that calls the tool. */
  readonly agentId?: string;
  /** Shadow mode: a call enforce mode would have warned or blocked ran anyway; here is what it would have done. */
  readonly onWouldHave?: (report: WouldHaveReport) => void;
}

export type { WouldHaveReport };

export interface OpenAIAgentsGuard {
  /** The tools with loopguard's guardrails added (function tools; others are returned as they are). */
  tools<T extends Tool<never>>(tools: readonly T[]): T[];
  readonly inputGuardrail: ToolInputGuardrailDefinition;
  readonly outputGuardrail: ToolOutputGuardrailDefinition;
  /** Spread into `run(agent, input, { ... })`: the trace id and group, and the warning filter. */
  readonly runOptions: { traceId: string; groupId: string; callModelInputFilter: CallModelInputFilter };
  /** The run as loopguard knows it (the agent is known once a tool has been called). */
  run(): RunRef;
  /** The run is over (call it when `run()` returns or throws). */
  ended(): Promise<void>;
  /** Tell loopguard the run compacted its context (arms the post-compaction guard). */
  compacted(): Promise<void>;
}

const allow: ToolGuardrailFunctionOutput = { behavior: { type: 'allow' } };

export function loopguardForOpenAIAgents(runner: LoopguardRunner, options: OpenAIAgentsGuardOptions = {}): OpenAIAgentsGuard {
  const runId = options.runId ?? `trace_${randomUUID().replaceAll('-', '')}`;
  const sessionKey = options.sessionKey ?? runId;
  let agentId = options.agentId;
  const run = (): RunRef => ({ sessionKey, runId, agentId });
  const notices: string[] = [];
  /** Model calls made so far: the calls of a response belong to the latest. */
  let modelCalls = 0;

  const inputGuardrail: ToolInputGuardrailDefinition = {
    type: 'tool_input',
    name: 'loopguard',
    run: async ({ agent, toolCall }) => {
      agentId ??= agent.name;
      const abort = runner.abortOf(run());
      if (abort !== undefined) return { behavior: { type: 'throwException' }, outputInfo: abort };
      const turn = modelCalls > 0 ? { turnId: `turn-${modelCalls}` } : {};
      const call = { ...run(), toolName: toolCall.name, args: argsOf(toolCall.arguments), toolCallId: toolCall.callId, ...turn };
      const verdict = await runner.beforeToolCall(call);
      if (verdict.wouldHave !== null) options.onWouldHave?.({ run: run(), toolName: call.toolName, toolCallId: call.toolCallId, wouldHave: verdict.wouldHave });
      if (verdict.decision === 'block')
        return { behavior: { type: 'rejectContent', message: verdict.message ?? `[loopguard] "${call.toolName}" was not run.` }, outputInfo: verdict };
      if (verdict.decision === 'warn' && verdict.notify && verdict.message !== null) notices.push(verdict.message);
      return allow;
    },
  };

  // Output guardrails run only for executed calls: a rejected call publishes nothing.
  const outputGuardrail: ToolOutputGuardrailDefinition = {
    type: 'tool_output',
    name: 'loopguard',
    run: async ({ toolCall, output }) => {
      await runner.afterToolCall({ ...run(), toolName: toolCall.name, args: argsOf(toolCall.arguments), toolCallId: toolCall.callId }, outcomeOf(output));
      return allow;
    },
  };

  // A warning reaches the model with its next input, after the tool outputs it is about.
  const callModelInputFilter: CallModelInputFilter = ({ modelData }) => {
    modelCalls++;
    if (notices.length === 0) return modelData;
    const warning: AgentInputItem = { role: 'user', content: notices.splice(0).join('\n\n') };
    return { ...modelData, input: [...modelData.input, warning] };
  };

  return {
    tools: (tools) =>
      tools.map((t) =>
        t.type === 'function' ? { ...t, inputGuardrails: [...(t.inputGuardrails ?? []), inputGuardrail], outputGuardrails: [...(t.outputGuardrails ?? []), outputGuardrail] } : t,
      ),
    inputGuardrail,
    outputGuardrail,
    runOptions: { traceId: runId, groupId: sessionKey, callModelInputFilter },
    run,
    ended: () => runner.runEnded(run()),
    compacted: () => runner.compacted(run()),
  };
}

/** A function call's arguments arrive as JSON text; loopguard compares the parsed value. */
function argsOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
