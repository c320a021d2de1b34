// What an executed function tool publishes: its output, whole — text, any JSON, image or file
// outputs, and the text the SDK makes of an error the tool threw (that is the output the model gets).
import { wholeResult, type ToolOutcome } from '../../sdk/index.js';

export function outcomeOf(output: unknown): ToolOutcome {
  return { result: wholeResult(output) };
}
