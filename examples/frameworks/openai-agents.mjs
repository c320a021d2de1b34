// The OpenAI Agents SDK with loopguard: the lines a user adds are marked `// loopguard`.
// `runner` is a connected LoopguardRunner (see README "Agent frameworks"); `model` any Agents SDK
// model. The test suite runs this file with a scripted model.
import { Agent, run, tool } from '@openai/agents';
import { z } from 'zod';
import { loopguardForOpenAIAgents } from 'loopguard/openai-agents'; // loopguard

const readFile = tool({
  name: 'readFile',
  description: 'Read a file of the repository',
  parameters: z.object({ path: z.string() }),
  execute: async ({ path }) => `// ${path}\nexport const retries = 3;`,
});

export async function answer({ runner, model, chatId, prompt, agentName = 'coder', onWouldHave }) {
  const guard = loopguardForOpenAIAgents(runner, { sessionKey: chatId, onWouldHave }); // loopguard
  const agent = new Agent({ name: agentName, model, tools: guard.tools([readFile]) }); // loopguard: guard.tools(...)
  try {
    return await run(agent, prompt, { ...guard.runOptions, maxTurns: 40 }); // loopguard: ...guard.runOptions
  } finally {
    await guard.ended(); // loopguard
  }
}
