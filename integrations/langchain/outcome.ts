// What an executed tool call publishes, from the ToolMessage it answered with: its content (text
// or content blocks, images included) and the artifact a `content_and_artifact` tool returns
// beside it, whole; or, for a message whose status is `error`, its text as the error.
import type { ToolMessage } from '@langchain/core/messages';
import { wholeResult, type ToolOutcome } from '../../sdk/index.js';

export function outcomeOf(answer: Pick<ToolMessage, 'status' | 'text' | 'content' | 'artifact'>): ToolOutcome {
  if (answer.status === 'error') return { error: answer.text };
  return { result: wholeResult(answer.artifact === undefined ? answer.content : { content: answer.content, artifact: answer.artifact }) };
}
