// Runs one scenario of test/frameworks/mastra.test.ts in a real Mastra agent, under Node 24
// (@mastra/core needs Node >= 22.13; vitest runs on Node 20). The agent is the README's example
// (examples/frameworks/mastra.mjs), driven by the AI SDK's own mock model that keeps calling the
// same tool with the same arguments; the runner talks to the test's real broker and registry.
// Usage: node drive.mjs <input.json> <output.json>; what it observed is written as JSON.
import { readFileSync, writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { pathToFileURL } from 'node:url';

const HERE = pathToFileURL(`${import.meta.dirname}/`).href;
const ROOT = new URL('../../../', HERE);

// The example imports @mastra/core as a user's code would; here Mastra lives in this fixture's
// node_modules, not the checkout's: a bare import the checkout cannot resolve is resolved here.
registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (error?.code !== 'ERR_MODULE_NOT_FOUND' || /^[./]|^node:|^file:/.test(specifier)) throw error;
      return nextResolve(specifier, { ...context, parentURL: HERE });
    }
  },
});

const { MockLanguageModelV4, convertArrayToReadableStream } = await import('ai/test');
const { LoopguardRunner } = await import(new URL('dist/sdk/index.js', ROOT).href);
const { loopguardForMastra } = await import(new URL('dist/integrations/mastra/index.js', ROOT).href);
const example = await import(new URL('examples/frameworks/mastra.mjs', ROOT).href);

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** A model that asks to read the same file (or make another call) at every step, as a stuck agent does. */
function stuckModel(toolName = 'readFile', args = { path: 'src/config.ts' }) {
  let n = 0;
  const call = () => ({ type: 'tool-call', toolCallId: `call-${++n}`, toolName, input: JSON.stringify(args) });
  const finishReason = { unified: 'tool-calls', raw: 'tool_calls' };
  return new MockLanguageModelV4({
    doGenerate: async () => ({ content: [call()], finishReason, usage, warnings: [] }),
    doStream: async () => ({ stream: convertArrayToReadableStream([{ type: 'stream-start', warnings: [] }, call(), { type: 'finish', finishReason, usage }]) }),
  });
}

/** What the test reads of a generate call: its steps' tool results, its tripwire, and what the model received. */
const observed = (result, model) => ({
  runId: result.runId,
  tripwire: result.tripwire ?? null,
  steps: result.steps.map((s) => ({ toolResults: s.toolResults.map((r) => r.payload?.result ?? r.output ?? r.result) })),
  prompts: [...model.doGenerateCalls, ...model.doStreamCalls].map((c) => c.prompt), // a call uses one of the two
});

const scenarios = {
  /** The README's example, as a user runs it. */
  async example(input, runner) {
    const reports = [];
    const model = stuckModel();
    const agent = example.coder({ model, id: input.agentId });
    const result = await example.answer({ runner, agent, chatId: input.chatId, prompt: 'What does src/config.ts set?', onWouldHave: (r) => reports.push(r) });
    return { ...observed(result, model), reports };
  },
  /** Two runs with one fixed run id, each ended by Mastra at 21 steps. */
  async rerun(input, runner) {
    const runs = [];
    for (let i = 0; i < 2; i++) {
      const model = stuckModel();
      const guard = loopguardForMastra(runner, { runId: input.runId, sessionKey: input.chatId, agentId: 'coder' });
      runs.push(observed(await example.coder({ model }).generate('go', { ...guard.options, maxSteps: 21 }), model));
    }
    return { runs };
  },
  /** The same options given to `agent.stream`, read to its end. */
  async stream(input, runner) {
    const model = stuckModel();
    const guard = loopguardForMastra(runner, { sessionKey: input.chatId });
    const stream = await example.coder({ model }).stream('go', { ...guard.options, maxSteps: 40 });
    return observed(await stream.getFullOutput(), model);
  },
  /** A deployment polled at every step by agent `poller`, in two runs: its JSON status moves on, then stays the same. */
  async poll(input, runner) {
    const { Agent } = await import('@mastra/core/agent');
    const { createTool } = await import('@mastra/core/tools');
    const { z } = await import('zod');
    const run = async (progress) => {
      let polls = 0;
      const deploymentStatus = createTool({
        id: 'deploymentStatus',
        description: 'The state of a deployment',
        inputSchema: z.object({ id: z.string() }),
        execute: async () => ({ state: 'rolling', progress: progress(++polls) }),
      });
      const model = stuckModel('deploymentStatus', { id: 'd1' });
      const agent = new Agent({ id: 'poller', name: 'Poller', instructions: 'You watch deployments.', model, tools: { deploymentStatus } });
      const guard = loopguardForMastra(runner, { sessionKey: input.chatId, agentId: 'poller' });
      const result = await agent.generate('Tell me when d1 is rolled out.', { ...guard.options, maxSteps: 8 });
      return { ...observed(result, model), polls };
    };
    return { moving: await run((n) => 10 * n), stuck: await run(() => 40) };
  },
  /** One step against topics no `loopguard run` reads. */
  async oneStep(input, runner) {
    const model = stuckModel();
    const guard = loopguardForMastra(runner, { sessionKey: input.chatId });
    return observed(await example.coder({ model }).generate('go', { ...guard.options, maxSteps: 1 }), model);
  },
};

const [inputFile, outputFile] = process.argv.slice(2);
const input = JSON.parse(readFileSync(inputFile, 'utf8'));
const aborts = [];
const runner = await LoopguardRunner.connect({ ...input.client, onAbort: (a) => aborts.push(a) });
try {
  const out = await scenarios[input.scenario](input, runner);
  writeFileSync(outputFile, JSON.stringify({ ...out, aborts }));
} finally {
  await runner.close();
}
