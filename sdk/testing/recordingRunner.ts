// A stand-in for the runner in the adapters' specs: it records what an adapter asks of it and
// allows every call, so a spec can drive an adapter with its host's own code and no broker.
import type { LoopguardRunner, ToolCallInput, ToolVerdict } from '../runner.js';

export interface RecordingRunner {
  readonly runner: LoopguardRunner;
  /** The calls asked about, in order. */
  readonly calls: ToolCallInput[];
}

export function recordingRunner(): RecordingRunner {
  const calls: ToolCallInput[] = [];
  const allow = (toolCallId: string): ToolVerdict => ({
    decision: 'allow',
    toolCallId,
    message: null,
    notify: false,
    detector: null,
    count: null,
    evidence: null,
    budget: null,
    wouldHave: null,
    turnBlockedBy: null,
    answeredBy: 'loopguard',
  });
  const runner = {
    beforeToolCall: async (call: ToolCallInput) => {
      calls.push(call);
      return allow(call.toolCallId ?? `call-${calls.length}`);
    },
    afterToolCall: async () => undefined,
    compacted: async () => undefined,
    runEnded: async () => undefined,
    abortOf: () => undefined,
  };
  return { runner: runner as unknown as LoopguardRunner, calls };
}
