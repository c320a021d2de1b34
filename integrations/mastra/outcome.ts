// What an executed tool call publishes, from Mastra's `afterToolCall` hook: the tool's output,
// whole (any value, an MCP tool's `{content, structuredContent}` included), or the error it threw.
import { wholeResult, type ToolOutcome } from '../../sdk/index.js';

export function outcomeOf(hook: { readonly output?: unknown; readonly error?: unknown }): ToolOutcome {
  return hook.error === undefined ? { result: wholeResult(hook.output) } : { error: hook.error };
}
