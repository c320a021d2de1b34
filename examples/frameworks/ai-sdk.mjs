// The Vercel AI SDK with loopguard: the lines a user adds are marked `// loopguard`.
// `runner` is a connected LoopguardRunner (see README "Agent frameworks"); `model` any AI SDK
// language model. The test suite runs this file with the AI SDK's own mock model.
import { generateText, isStepCount, tool } from 'ai';
import { z } from 'zod';
import { loopguardForAiSdk } from 'loopguard/ai-sdk'; // loopguard

const readFile = tool({
  description: 'Read a file of the repository',
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => `// ${path}\nexport const retries = 3;`,
});

export async function answer({ runner, model, chatId, prompt, agentId = 'coder', onWouldHave }) {
  const guard = loopguardForAiSdk(runner, { sessionKey: chatId, agentId, onWouldHave }); // loopguard
  return generateText({
    model,
    prompt,
    tools: { readFile },
    ...guard.settings, // loopguard
    stopWhen: [isStepCount(40), guard.stopWhen], // loopguard: ends the run when loopguard does
  });
}
