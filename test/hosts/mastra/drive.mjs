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
  /** Step 0 asks for two reads together, step 1 for one, then the model answers: the turnId each call was asked with. */
  async turns(input, runner) {
    const asked = [];
    const recording = Object.create(runner, {
      beforeToolCall: { value: (call) => (asked.push({ toolCallId: call.toolCallId, turnId: call.turnId ?? null }), runner.beforeToolCall(call)) },
    });
    const steps = [['a1', 'a2'], ['b1']];
    let n = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        const ids = steps[n++];
        if (ids === undefined) return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
        const content = ids.map((id) => ({ type: 'tool-call', toolCallId: id, toolName: 'readFile', input: JSON.stringify({ path: id }) }));
        return { content, finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] };
      },
    });
    const guard = loopguardForMastra(recording, { sessionKey: input.chatId });
    await example.coder({ model }).generate('go', { ...guard.options, maxSteps: 5 });
    return { asked };
  },
  /** One step against topics no `loopguard run` reads. */
  async oneStep(input, runner) {
    const model = stuckModel();
    const guard = loopguardForMastra(runner, { sessionKey: input.chatId });
    return observed(await example.coder({ model }).generate('go', { ...guard.options, maxSteps: 1 }), model);
  },
};

/**
 * A model that reads one path per step, from `paths`, then answers; the time of each step, and
 * before step `pauseAt` a wait for `resume()`.
 */
function scriptedModel(paths, pauseAt, resume) {
  const asked = [];
  let n = 0;
  const finishReason = (tools) => ({ unified: tools ? 'tool-calls' : 'stop', raw: tools ? 'tool_calls' : 'stop' });
  const next = async () => {
    const i = n++;
    if (i === pauseAt) await resume();
    asked.push(Date.now());
    const path = paths[i];
    return path === undefined ? [{ type: 'text', text: 'done' }] : [{ type: 'tool-call', toolCallId: `call-${i + 1}`, toolName: 'readFile', input: JSON.stringify({ path }) }];
  };
  const model = new MockLanguageModelV4({
    doGenerate: async () => {
      const content = await next();
      return { content, finishReason: finishReason(content[0].type === 'tool-call'), usage, warnings: [] };
    },
    doStream: async () => {
      const content = await next();
      const parts = content[0].type === 'tool-call' ? content : [{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'done' }, { type: 'text-end', id: 't' }];
      return { stream: convertArrayToReadableStream([{ type: 'stream-start', warnings: [] }, ...parts, { type: 'finish', finishReason: finishReason(content[0].type === 'tool-call'), usage }]) };
    },
  });
  return { model, asked };
}

/**
 * Serves runs of the README's example for test/outageNode24.test.ts, one JSON line each way:
 * `{"paths":[…],"pauseAt"?:n}` in, `{"seen":[{path,text,ms,at}]}` out; before a pause it writes
 * `{"paused":true}` and waits for `{"resume":true}`. Connects while Kafka may be away, and says
 * `{"ready":true}`.
 */
async function serve(input) {
  const { createInterface } = await import('node:readline');
  const runner = await LoopguardRunner.connect(input.client);
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  const say = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
  const read = async () => JSON.parse((await lines.next()).value);
  say({ ready: true });
  let runs = 0;
  for (;;) {
    const next = await lines.next();
    if (next.done) break;
    const { paths, pauseAt } = JSON.parse(next.value);
    const { model, asked } = scriptedModel(paths, pauseAt ?? -1, async () => {
      say({ paused: true });
      await read();
    });
    const result = await example.answer({ runner, agent: example.coder({ model }), chatId: `outage-mastra-${++runs}`, prompt: 'read them' });
    const prompt = [...model.doGenerateCalls, ...model.doStreamCalls].at(-1).prompt;
    const textOf = (id) => {
      for (const m of prompt) if (m.role === 'tool' && typeof m.content !== 'string') for (const part of m.content) if (part.toolCallId === id) return JSON.stringify(part.output);
      return JSON.stringify(result.tripwire ?? null);
    };
    say({ seen: paths.map((path, i) => ({ path, text: textOf(`call-${i + 1}`), ms: asked[i + 1] - asked[i], at: asked[i + 1] })) });
  }
  await runner.close();
}

const [inputFile, outputFile] = process.argv.slice(2);
const input = JSON.parse(readFileSync(inputFile, 'utf8'));
if (input.scenario === 'serve') {
  await serve(input);
  process.exit(0);
}
const aborts = [];
const runner = await LoopguardRunner.connect({ ...input.client, onAbort: (a) => aborts.push(a) });
try {
  const out = await scenarios[input.scenario](input, runner);
  writeFileSync(outputFile, JSON.stringify({ ...out, aborts }));
} finally {
  await runner.close();
}
