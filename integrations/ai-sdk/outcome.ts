// What a tool's execution publishes: the output the tool returned, whole — any value, an MCP
// tool's `{content, structuredContent}` included — or the error it threw.
import { wholeResult, type ToolOutcome } from '../../sdk/index.js';

export type ToolOutputLike = { readonly type: 'tool-result'; readonly output: unknown } | { readonly type: 'tool-error'; readonly error: unknown };

export function outcomeOf(toolOutput: ToolOutputLike): ToolOutcome {
  return toolOutput.type === 'tool-result' ? { result: wholeResult(toolOutput.output) } : { error: toolOutput.error };
}
