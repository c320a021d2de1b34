// The decisions a tool event's verdict publishes (docs/behaviour.md §1): one `tool_decision`
// for every call (a redelivered call gets its original one again, and nothing else), a
// `run_abort` when the post-compaction guard fires or right after the block that escalates
// (§4.2). Their fields are declared once, here.
import { declare, f, type Record_ } from '../kernel/contract.js';
import { EVIDENCE, type Evidence } from '../kernel/evidence.js';
import type { RunVerdict } from './decide.js';
import { runKeyOf, type ToolCall, type ToolEvent } from './events.js';
import { notRunMessage, verdictMessage } from './messages.js';
import { ABORT_DETECTORS, DETECTOR_NAMES, DETECTORS, type AbortDetector, type Verdict } from './state.js';

const identity = {
  key: f.text('The run key: runId, else sessionKey.'),
  sessionKey: f.optional(f.text()),
  runId: f.optional(f.text()),
  ts: f.long('Event time of the input, epoch ms.'),
};

export const TOOL_DECISION = declare('tool_decision', {
  ...identity,
  toolCallId: f.optional(f.text()),
  toolName: f.text(),
  decision: f.choice(['allow', 'warn', 'block'], 'allow / warn / block.'),
  detector: f.optional(f.choice(DETECTOR_NAMES)),
  level: f.optional(f.choice(['warning', 'critical'])),
  count: f.optional(f.count()),
  message: f.optional(f.text('What to tell the model.')),
  pairedToolName: f.optional(f.text()),
  notify: f.optional(f.boolean('Show the warning to the model now.')),
  shadow: f.optional(f.boolean('Decided in shadow mode: obey it as allow / deliver, report what it would have done.')),
  evidence: f.optional(EVIDENCE),
  turnBlockedBy: f.optional(f.text('A block of a call not run because another call of its turn was blocked: that call’s toolCallId.')),
});

export const RUN_ABORT = declare('run_abort', {
  ...identity,
  detector: f.choice(ABORT_DETECTORS),
  count: f.count(),
  toolName: f.text(),
  message: f.text(),
  shadow: f.optional(f.boolean()),
  evidence: f.optional(EVIDENCE),
});

export type ToolDecision = { readonly type: 'tool_decision' } & Record_<typeof TOOL_DECISION.fields>;
export type RunAbort = { readonly type: 'run_abort' } & Record_<typeof RUN_ABORT.fields>;
export type ToolLoopDecision = ToolDecision | RunAbort;

export function reactRun(event: ToolEvent, verdict: RunVerdict): readonly ToolLoopDecision[] {
  if (event.type === 'tool_call') {
    if (verdict.kind === 'call') {
      const decision = toolDecision(event, verdict.verdict);
      const x = verdict.escalation;
      return x === undefined ? [decision] : [decision, runAbort(event, x.detector, x.count, event.toolName, x.shadow, x.evidence)];
    }
    if (verdict.kind === 'repeat' && verdict.verdict !== null) return [toolDecision(event, verdict.verdict)];
    return [];
  }
  if (event.type === 'tool_outcome' && verdict.kind === 'abort') {
    return [runAbort(event, DETECTORS.compactionLoopPersisted, verdict.count, verdict.toolName, verdict.shadow, verdict.evidence)];
  }
  return [];
}

function runAbort(event: ToolEvent, detector: AbortDetector, count: number, toolName: string, shadow: true | undefined, evidence: Evidence | undefined): RunAbort {
  return {
    type: 'run_abort',
    key: runKeyOf(event),
    sessionKey: event.sessionKey ?? null,
    runId: event.runId ?? null,
    ts: event.ts,
    detector,
    count,
    toolName,
    message: verdictMessage(detector, 'block', toolName, count),
    shadow: shadow ?? null,
    evidence: evidence ?? null,
  };
}

function toolDecision(event: ToolCall, v: Verdict): ToolDecision {
  const acting = v.decision !== 'allow';
  // One literal with every field, so decisions share a single shape (this is the hot path).
  return {
    type: 'tool_decision',
    key: runKeyOf(event),
    sessionKey: event.sessionKey ?? null,
    runId: event.runId ?? null,
    ts: event.ts,
    toolCallId: event.toolCallId ?? null,
    toolName: event.toolName,
    decision: v.decision,
    detector: acting ? v.detector : null,
    level: acting ? v.level : null,
    count: acting ? v.count : null,
    message: acting
      ? v.turnBlockedBy !== undefined
        ? notRunMessage(v.detector, event.toolName)
        : verdictMessage(v.detector, v.decision, event.toolName, v.count, v.pairedToolName)
      : null,
    pairedToolName: acting ? (v.pairedToolName ?? null) : null,
    notify: acting ? v.notify : null,
    shadow: v.shadow ?? null,
    evidence: acting ? (v.evidence ?? null) : null,
    turnBlockedBy: acting ? (v.turnBlockedBy ?? null) : null,
  };
}
