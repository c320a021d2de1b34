// What an OpenClaw tool call publishes, from `after_tool_call`: the gateway's result as OpenClaw
// reports it — `{content, details}`, hashed by the gateway's own rules (docs/behaviour.md §2.2
// rules 3–8: exec, process polls, sends) — or its error; nothing for a call loopguard blocked.
import type { ToolOutcome } from '../../sdk/runner.js';
import type { AfterToolCallEvent, ToolResult } from './host.js';

/** OpenClaw reports a call a plugin blocked as a failed call: that is our block, not an outcome. */
function isOwnBlock(e: AfterToolCallEvent): boolean {
  const r = e.result as { details?: { status?: unknown } } | undefined;
  return r?.details?.status === 'blocked';
}

/** OpenClaw reports the result the model read: the warning we appended to it is not the tool's. */
function withoutText(result: unknown, text: string): unknown {
  const r = result as ToolResult | undefined;
  if (!Array.isArray(r?.content)) return result;
  return { ...r, content: r.content.filter((c) => c.text !== text) };
}

/** The outcome to publish, or undefined for our own block; `warning` is the text loopguard appended to the result. */
export function outcomeOf(event: AfterToolCallEvent, warning: string | undefined): ToolOutcome | undefined {
  if (isOwnBlock(event)) return undefined;
  return { result: warning === undefined ? event.result : withoutText(event.result, warning), error: event.error };
}
