// LangChain.js agents with loopguard: the lines a user adds are marked `// loopguard`.
// `runner` is a connected LoopguardRunner (see README "Agent frameworks"); `model` any LangChain
// chat model. The test suite runs this file with LangChain's own fake tool-calling model.
import { createAgent, tool } from 'langchain';
import { z } from 'zod';
import { loopguardMiddleware } from 'loopguard/langchain'; // loopguard

const readFile = tool(async ({ path }) => `// ${path}\nexport const retries = 3;`, {
  name: 'readFile',
  description: 'Read a file of the repository',
  schema: z.object({ path: z.string() }),
});

export function coder({ runner, model, agentId = 'coder', onWouldHave }) {
  return createAgent({
    model,
    tools: [readFile],
    middleware: [loopguardMiddleware(runner, { agentId, onWouldHave })], // loopguard
  });
}

/**
 * LangGraph ends a run after 25 steps unless told otherwise, and each tool call takes three
 * (loopguard's check before the model, the model, the tool): about 8 calls, before loopguard
 * has seen a loop. Room for 40 calls, as the other examples give their agents.
 */
export const RECURSION_LIMIT = 3 * 40 + 10;

export function answer({ runner, model, chatId, prompt, agentId, onWouldHave }) {
  return coder({ runner, model, agentId, onWouldHave }).invoke(
    { messages: [{ role: 'user', content: prompt }] },
    { configurable: { thread_id: chatId }, recursionLimit: RECURSION_LIMIT },
  );
}
