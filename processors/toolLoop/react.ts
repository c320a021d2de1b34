// Turning what an event caused into decisions (SPEC §1): one `tool_decision` for every call,
// a `run_abort` when the post-compaction guard fires.
import type { ToolEvent } from './events.js';
import { runKeyOf } from './events.js';
import { verdictMessage } from './messages.js';
import { DETECTORS, type Detector, type RunState } from './state.js';

interface DecisionIdentity {
  readonly key: string;
  readonly sessionKey: string | null;
  readonly runId: string | null;
  readonly ts: number;
}

export interface ToolDecision extends DecisionIdentity {
  readonly type: 'tool_decision';
  readonly toolCallId: string | null;
  readonly toolName: string;
  readonly decision: 'allow' | 'warn' | 'block';
  readonly detector: Detector | null;
  readonly level: 'warning' | 'critical' | null;
  readonly count: number | null;
  readonly message: string | null;
  readonly pairedToolName: string | null;
  readonly notify: boolean | null;
}

export interface RunAbort extends DecisionIdentity {
  readonly type: 'run_abort';
  readonly detector: typeof DETECTORS.compactionLoopPersisted;
  readonly count: number;
  readonly toolName: string;
  readonly message: string;
}

export type ToolLoopDecision = ToolDecision | RunAbort;

export function reactRun(state: RunState, event: ToolEvent): readonly ToolLoopDecision[] {
  const effect = state.effect;
  if (event.type === 'tool_call' && effect.kind === 'verdict') {
    const v = effect.verdict;
    const blocking = v.decision !== 'allow';
    // One literal with every field, so decisions share a single shape (this is the hot path).
    return [{
      type: 'tool_decision',
      key: runKeyOf(event),
      sessionKey: event.sessionKey ?? null,
      runId: event.runId ?? null,
      ts: event.ts,
      toolCallId: event.toolCallId ?? null,
      toolName: event.toolName,
      decision: v.decision,
      detector: blocking ? v.detector : null,
      level: blocking ? v.level : null,
      count: blocking ? v.count : null,
      message: blocking ? verdictMessage(v.detector, v.decision, event.toolName, v.count, v.pairedToolName) : null,
      pairedToolName: blocking ? v.pairedToolName ?? null : null,
      notify: blocking ? v.notify : null,
    }];
  }
  if (event.type === 'tool_outcome' && effect.kind === 'abort') {
    const detector = DETECTORS.compactionLoopPersisted;
    return [{
      type: 'run_abort', key: runKeyOf(event), sessionKey: event.sessionKey ?? null, runId: event.runId ?? null, ts: event.ts,
      detector, count: effect.count, toolName: effect.toolName, message: verdictMessage(detector, 'block', effect.toolName, effect.count),
    }];
  }
  return [];
}
