// The calls one model turn asked for together, as the runner answers them under the openclaw
// profile (docs/behaviour.md §6.4): when any of them is blocked, none of them runs. The
// processor already answers the calls after the blocked one with `turnBlockedBy`; the calls
// before it were decided (allowed or warned) before anyone knew, so the runner blocks them here.
import { notRunMessage } from '../processors/toolLoop/messages.js';
import { DETECTOR_NAMES, type Detector } from '../processors/toolLoop/state.js';
import type { ToolVerdict } from './verdicts.js';

const isDetector = (d: string | null): d is Detector => d !== null && (DETECTOR_NAMES as readonly string[]).includes(d);

/** What a call not run because `trigger` was blocked shows the model. */
function notRunText(trigger: ToolVerdict, toolName: string): string {
  if (isDetector(trigger.detector)) return notRunMessage(trigger.detector, toolName);
  return `[loopguard] Not run: "${toolName}" was not executed because another call of the same turn was blocked. Reassess before choosing the next action.`;
}

/**
 * The verdicts of a turn's calls (in the model's order, `toolNames[i]` the name of call i) with
 * the turn rule applied: unless one is a block, each call's own; otherwise the blocked call
 * keeps its block and every other call is blocked with the trigger's grounds and a note that
 * it was not run.
 */
export function turnVerdicts(toolNames: readonly string[], verdicts: readonly ToolVerdict[]): ToolVerdict[] {
  const trigger = verdicts.find((v) => v.decision === 'block' && v.turnBlockedBy === null) ?? verdicts.find((v) => v.decision === 'block');
  if (trigger === undefined) return [...verdicts];
  return verdicts.map((v, i) =>
    v.decision === 'block'
      ? v
      : {
          decision: 'block',
          toolCallId: v.toolCallId,
          message: notRunText(trigger, toolNames[i] ?? ''),
          notify: true,
          detector: trigger.detector,
          count: trigger.count,
          evidence: trigger.evidence,
          budget: trigger.budget,
          wouldHave: null,
          turnBlockedBy: trigger.turnBlockedBy ?? trigger.toolCallId,
          answeredBy: trigger.answeredBy,
        },
  );
}
