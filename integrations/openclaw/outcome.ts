// What an OpenClaw tool call publishes, from `after_tool_call`: the gateway's result as OpenClaw
// reports it — `{content, details}`, hashed by the gateway's own rules (docs/behaviour.md §2.2
// rules 3–8: exec, process polls, sends) — or its error; a veto for a call OpenClaw's own loop
// detector blocked; nothing for a call that did not run for any other reason (loopguard's own
// block, another plugin's, an approval refused).
import { isPlainObject } from '../../processors/toolLoop/hashing.js';
import { isHostVeto } from '../../sdk/outcomes.js';
import type { ToolOutcome } from '../../sdk/runner.js';
import type { AfterToolCallEvent, ToolResult } from './host.js';

export type Reported =
  /** The call ran (or failed): its outcome. */
  | { readonly kind: 'outcome'; readonly outcome: ToolOutcome }
  /** OpenClaw's own detector vetoed the call: its result, which the runner sends as a veto. */
  | { readonly kind: 'veto'; readonly outcome: ToolOutcome }
  /** The call did not run, and is nobody's veto: nothing to publish. */
  | { readonly kind: 'none' };

const NONE: Reported = { kind: 'none' };

/** OpenClaw reports the result the model read: the warning we appended to it is not the tool's. */
function withoutText(result: unknown, text: string): unknown {
  const r = result as ToolResult | undefined;
  if (!Array.isArray(r?.content)) return result;
  return { ...r, content: r.content.filter((c) => c.text !== text) };
}

/**
 * What to publish for a call OpenClaw reports. `warning` is the text loopguard appended to its
 * result. A turn OpenClaw's detector blocks reports every call of it as blocked for a tool
 * loop, but records as vetoes only the calls with the trigger's tool and arguments:
 * `sameAsTrigger(id)` says whether this call has those of the call `id` OpenClaw blocked.
 */
export function reportedOf(event: AfterToolCallEvent, toolCallId: string, warning: string | undefined, sameAsTrigger: (triggerId: string) => boolean): Reported {
  const result = event.result;
  if (isHostVeto(result)) {
    const intervention = (result as { details: { intervention?: unknown } }).details.intervention;
    const trigger = isPlainObject(intervention) && typeof intervention.toolCallId === 'string' ? intervention.toolCallId : toolCallId;
    return trigger === toolCallId || sameAsTrigger(trigger) ? { kind: 'veto', outcome: { result } } : NONE;
  }
  if (isPlainObject(result) && isPlainObject(result.details) && result.details.status === 'blocked') return NONE;
  return { kind: 'outcome', outcome: { result: warning === undefined ? result : withoutText(result, warning), error: event.error } };
}
