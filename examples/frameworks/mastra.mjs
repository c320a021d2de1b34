// Mastra with loopguard: the lines a user adds are marked `// loopguard`. `runner` is a
// connected LoopguardRunner (see README "Agent frameworks"); `model` any model Mastra takes.
// The test suite runs this file under Node 24 with the AI SDK's own mock model.
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { loopguardForMastra } from 'loopguard/mastra'; // loopguard

const readFile = createTool({
  id: 'readFile',
  description: 'Read a file of the repository',
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => `// ${path}\nexport const retries = 3;`,
});

export function coder({ model, id = 'coder' }) {
  return new Agent({ id, name: 'Coder', instructions: 'You answer questions about the repository.', model, tools: { readFile } });
}

export async function answer({ runner, agent, chatId, prompt, onWouldHave }) {
  const guard = loopguardForMastra(runner, { sessionKey: chatId, onWouldHave }); // loopguard
  return agent.generate(prompt, {
    ...guard.options, // loopguard: its hooks, prepareStep and onFinish; a run it ends returns with `tripwire`
    maxSteps: 40,
  });
}
