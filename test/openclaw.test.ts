// The OpenClaw plugin in the real `openclaw` package: OpenClaw's own loader loads it (from a
// package folder laid out as an install would) into a long-lived `openclaw gateway`, OpenClaw's
// agent loop fires its hooks in turns sent to the gateway's own HTTP endpoint and driven by a
// scripted model, and a real `loopguard run` — reading the same openclaw.json — decides.
// OpenClaw's start-up (tens of seconds) is paid once per gateway, not once per turn.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFrom } from '../topology/config.js';
import { collectDecisions, infraEnv, lg, lgOk, ready, testKafkaClient, waitFor, type Collected, type Run } from './helpers/harness.js';
import { chat, collectInputs, gateway, installOpenClaw, script, startGateway, turn, type RunningGateway } from './helpers/openclaw.js';
import { startScriptedModel, type ScriptedModel } from './helpers/scriptedModel.mjs';

const TURN_MS = 240_000;
/** The gateway client that plays another bot; client `cli` plays a person. */
const BOT = 'test';
/** The pair budget of the gateway's own botLoopProtection block, which `loopguard run` reads: the 4th message in an hour is suppressed. */
const PAIR_BUDGET = 3;
/** Where the MCP server the closed gateway's runs may call writes the name of every call it receives. */
const mcpDir = mkdtempSync(join(tmpdir(), 'loopguard-openclaw-mcp-'));
const mcpCalls = join(mcpDir, 'calls.txt');
let model: ScriptedModel;
const name = `it-openclaw-${randomUUID().slice(0, 8)}`;
const topics = {
  toolEvents: `${name}.tool-events`,
  channelEvents: `${name}.channel-events`,
  verdicts: `${name}.verdicts`,
  deadLetter: `${name}.dead-letter`,
  changelogPrefix: `${name}.`,
  partitions: 3,
};

/** The plugin's config; `loopguard run` reads its own settings from the same entry. */
const pluginConfig = (failure: 'open' | 'closed') => ({
  brokers: infraEnv().KAFKA_BROKERS.split(','),
  schemaRegistryUrl: infraEnv().SCHEMA_REGISTRY_URL,
  failure,
  timeoutMs: 3000,
  topics,
  // The gateways' client, and the processor's (it reads this entry): LOOPGUARD_TEST_KAFKA_CLIENT.
  kafkaClient: testKafkaClient(),
  // loopguard's detector is on; OpenClaw's own (tools.loopDetection) is off in the closed gateway, on in the open one.
  loopDetection: { enabled: true },
  // OpenClaw names a gateway client's message's sender by the client's id: client `test` is the other bot.
  botSenderIds: [BOT],
  processor: { consumer: { groupId: `${name}-group`, sessionTimeoutMs: 8000 }, http: { port: 0, host: '127.0.0.1' }, log: { level: 'info' } },
});

type Request = ScriptedModel['requests'][number];
const textOf = (content: unknown): string => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? '').join('') : '');
/** The tool results the model read in a request, in order. */
const toolResults = (req: Request): string[] => (req.messages ?? []).filter((m) => m.role === 'tool').map((m) => textOf(m.content));
/** The tool results the model read in a request after the turn's own (scripted) message: a compacted session keeps older ones. */
const turnResults = (req: Request): string[] => {
  const msgs = req.messages ?? [];
  const start = msgs.findLastIndex((m) => m.role === 'user' && textOf(m.content).includes('[[script:'));
  return msgs
    .slice(start + 1)
    .filter((m) => m.role === 'tool')
    .map((m) => textOf(m.content));
};
/** The text of the latest user message of a request: the message its turn answers. */
const latestUserText = (req: Request): string => textOf((req.messages ?? []).findLast((m) => m.role === 'user' && !textOf(m.content).startsWith('<<<'))?.content);
/** The last request the model got in a turn (the one it answered with its final text). */
const lastRequestSince = (first: number): Request => model.requests.slice(first).at(-1)!;

let closed: RunningGateway;
let open: RunningGateway;
let processor: Run;
let decisions: Collected;
let toolEvents: Array<Record<string, unknown>>;
let channelEvents: Array<Record<string, unknown>>;

beforeAll(async () => {
  installOpenClaw();
  model = await startScriptedModel();
  // OpenClaw compacts a session whose transcript is over 2000 bytes before its next turn: only
  // the compaction scenario continues a session, the others each start one.
  const closedHome = await gateway('closed', {
    modelPort: model.port,
    loopguard: pluginConfig('closed'),
    compaction: { maxActiveTranscriptBytes: 2000 },
    channels: { defaults: { botLoopProtection: { maxEventsPerWindow: PAIR_BUDGET, windowSeconds: 3600, cooldownSeconds: 3600 } } },
    // A real MCP server (stdio, the MCP SDK), which OpenClaw puts behind Tool Search by default.
    mcpServers: { counting: { command: process.execPath, args: [join(import.meta.dirname, 'helpers', 'mcpCountingServer.mjs'), mcpCalls] } },
  });
  // OpenClaw's own detector is on in this one too: it runs before the plugin's hooks.
  const openHome = await gateway('open', { modelPort: model.port, loopguard: pluginConfig('open'), loopDetection: { enabled: true } });
  // One file: the processor is started with the gateway's own openclaw.json.
  await lgOk(['topics', 'create', '--config', closedHome.configFile]);
  processor = lg(['run', '--config', closedHome.configFile]);
  [closed, open] = await Promise.all([startGateway(closedHome), startGateway(openHome), ready(processor)]);
  const w = { name, configFile: closedHome.configFile, config: configFrom(JSON.parse(readFileSync(closedHome.configFile, 'utf8')), infraEnv()) };
  decisions = await collectDecisions(w);
  toolEvents = await collectInputs(w, 'toolEvents');
  channelEvents = await collectInputs(w, 'channelEvents');
}, 600_000);

afterAll(async () => {
  await model?.close();
  rmSync(mcpDir, { recursive: true, force: true });
});

const decisionsOf = (tool: string) =>
  [...decisions.byId.values()].filter((d) => d.type === 'tool_decision' && d.toolName === tool).sort((a, b) => (a.count as number) - (b.count as number));

/** The bot decisions, in the order of their messages. */
const botDecisions = () => [...decisions.byId.values()].filter((d) => d.type === 'bot_decision').sort((a, b) => (a.ts as number) - (b.ts as number));

const outcomesOf = (tool: string) => toolEvents.filter((e) => e.type === 'tool_outcome' && e.toolName === tool);

describe('loopguard in a real OpenClaw gateway', () => {
  it(
    'blocks the repeated call at count 20 with its message as the tool result; the warning reaches the model once',
    async () => {
      const first = model.requests.length;
      const t = await turn(closed, 'loop-1', `Read hello.txt. ${script([{ tool: 'read', args: { path: 'hello.txt' }, times: 22 }])}`, TURN_MS);
      expect(t, t.text).toMatchObject({ status: 200, text: 'FINAL: saw 22 tool results.' });
      await waitFor('22 decisions', () => decisionsOf('read').length >= 22);
      const read = decisionsOf('read');
      const warn = read.find((d) => d.decision === 'warn' && d.notify === true)!;
      const block = read.find((d) => d.decision === 'block')!;
      expect(warn).toMatchObject({ detector: 'generic_repeat', count: 10 });
      expect(block).toMatchObject({ detector: 'generic_repeat', count: 20 });
      expect(read.filter((d) => d.decision === 'warn' && d.notify === true)).toHaveLength(1);

      const results = toolResults(lastRequestSince(first));
      expect(results).toHaveLength(22);
      // Calls 1–20 ran (the file's text); the 21st and 22nd were vetoed, and the model read the block's message.
      expect(results.slice(0, 20).every((r) => r.includes('hello from the workspace'))).toBe(true);
      expect(results[20]).toContain(block.message as string);
      expect(results[21]).toContain(block.message as string);
      // The warning was shown with the 11th call's result, and with no other.
      expect(results.map((r, i) => (r.includes(warn.message as string) ? i : -1)).filter((i) => i >= 0)).toEqual([10]);
    },
    TURN_MS + 60_000,
  );

  it(
    'a call whose result changes every time is warned, never blocked, at and past count 20: its outcomes reached loopguard',
    async () => {
      const first = model.requests.length;
      const t = await turn(closed, 'clock-1', `Tell the time. ${script([{ tool: 'exec', args: { command: 'date +%s%N' }, times: 22 }])}`, TURN_MS);
      expect(t, t.text).toMatchObject({ status: 200, text: 'FINAL: saw 22 tool results.' });
      await waitFor('22 exec decisions', () => decisionsOf('exec').length >= 22);
      const exec = decisionsOf('exec');
      expect(exec).toHaveLength(22);
      // Calls 1–10 allowed; from the 11th (count 10) on, the same call again and again is warned,
      // and still only warned at counts 20 and 21, where an identical result would be blocked.
      expect(exec.filter((d) => d.decision === 'allow')).toHaveLength(10);
      const warned = exec.filter((d) => d.decision === 'warn');
      expect(warned.map((d) => d.count)).toEqual(Array.from({ length: 12 }, (_, i) => i + 10));
      expect(warned.every((d) => d.detector === 'generic_repeat')).toBe(true);
      expect(exec.filter((d) => d.decision === 'block')).toEqual([]);

      // Every call ran, and each read a different clock.
      const results = toolResults(lastRequestSince(first));
      expect(results).toHaveLength(22);
      expect(new Set(results.map((r) => /\d{19}/.exec(r)?.[0])).size).toBe(22);
      // loopguard saw 22 outcomes of the call, with 22 different results: what made it no repeat of no progress.
      await waitFor('22 exec outcomes', () => outcomesOf('exec').length >= 22);
      const outcomes = outcomesOf('exec');
      expect(outcomes).toHaveLength(22);
      expect(new Set(outcomes.map((e) => JSON.stringify(e.resultHash ?? e.result))).size).toBe(22);
    },
    TURN_MS + 60_000,
  );

  it(
    'a compaction loop ends the run: after OpenClaw compacts the session, three identical outcomes end the run and its later calls are blocked',
    async () => {
      const t1 = await turn(closed, 'compact-1', `Read hello.txt. ${script([{ tool: 'read', args: { path: 'hello.txt' }, times: 3 }])}`, TURN_MS);
      expect(t1.status, t1.text).toBe(200);
      const first = model.requests.length;
      const t2 = await turn(closed, 'compact-1', `Read it again. ${script([{ tool: 'read', args: { path: 'hello.txt' }, times: 5 }])}`, TURN_MS);
      expect(t2.status, t2.text).toBe(200);
      // OpenClaw's own compaction ran in the second turn: its summariser is a request with no tools.
      expect(model.requests.slice(first).some((r) => (r.tools ?? []).length === 0)).toBe(true);
      await waitFor('the run_abort', () => [...decisions.byId.values()].some((d) => d.type === 'run_abort'));
      const aborts = [...decisions.byId.values()].filter((d) => d.type === 'run_abort');
      expect(aborts).toHaveLength(1);
      expect(aborts[0]).toMatchObject({ detector: 'compaction_loop_persisted', count: 3, toolName: 'read' });

      // The three outcomes after the compaction ran; the run's later calls were blocked with the abort's message.
      const results = turnResults(lastRequestSince(first));
      expect(results).toHaveLength(5);
      expect(results.slice(0, 3).every((r) => r.includes('hello from the workspace'))).toBe(true);
      expect(results[3]).toContain(aborts[0]!.message as string);
      expect(results[4]).toContain(aborts[0]!.message as string);
    },
    2 * TURN_MS + 60_000,
  );

  it(
    "a bot pair storm is suppressed before the agent runs, without a reply; a person's message is published and delivered",
    async () => {
      const session = 'agent:main:bots-1';
      const said = Array.from({ length: PAIR_BUDGET + 2 }, (_, i) => `bot message ${i + 1} ${randomUUID()}`);
      const first = model.requests.length;
      expect(await chat(closed, BOT, session, said.slice(0, PAIR_BUDGET))).toHaveLength(PAIR_BUDGET);
      // Each delivered message ran a turn: the model was asked, with that message as the latest.
      const delivered = model.requests.slice(first);
      expect(said.slice(0, PAIR_BUDGET).map((m) => delivered.some((r) => latestUserText(r).includes(m)))).toEqual([true, true, true]);

      // Over the budget: no turn runs, so the model is not asked and nothing replies.
      const beforeStorm = model.requests.length;
      expect(await chat(closed, BOT, session, said.slice(PAIR_BUDGET))).toHaveLength(2);
      await waitFor('a bot decision per bot message', () => botDecisions().length >= said.length);
      expect(model.requests.length).toBe(beforeStorm);
      const decided = botDecisions();
      expect(decided.map((d) => d.decision)).toEqual([...Array<string>(PAIR_BUDGET).fill('deliver'), 'suppress', 'suppress']);
      expect(decided.filter((d) => d.decision === 'suppress').every((d) => d.reason === 'pair_budget')).toBe(true);
      expect(closed.output()).toContain(`loopguard: suppressed the message from ${BOT}`);

      // A person in the same conversation is never held up: published, and a turn runs on it.
      const human = `a person writes ${randomUUID()}`;
      await chat(closed, 'cli', session, [human]);
      expect(model.requests.slice(beforeStorm).some((r) => latestUserText(r).includes(human))).toBe(true);

      // loopguard's inputs: a bot_message per bot message, all one pair (the bot and this gateway's account), and the person's as a human_message.
      await waitFor('the human_message', () => channelEvents.some((e) => e.type === 'human_message'));
      const bots = channelEvents.filter((e) => e.type === 'bot_message');
      expect(bots).toHaveLength(said.length);
      expect(new Set(bots.map((e) => `${e.channel}/${e.accountId}/${e.conversationId}/${e.senderId}/${e.receiverId}`)).size).toBe(1);
      expect(bots[0]).toMatchObject({ senderId: BOT, receiverId: 'default' });
      expect(channelEvents.filter((e) => e.type === 'human_message')).toEqual([expect.objectContaining({ senderId: 'cli', conversationId: bots[0]!.conversationId })]);
    },
    2 * TURN_MS + 60_000,
  );

  it(
    'guards an MCP tool behind Tool Search as itself: of 25 identical calls through tool_call the 21st is blocked, the server runs 20, the model reads the warning at 11 and the block at 21; each turn is published whole before it runs',
    async () => {
      const first = model.requests.length;
      const call = { tool: 'tool_call', args: { id: 'counting__read', args: { path: 'a.txt' } } };
      // Ten turns of one call, then three turns of five calls the model asks for together.
      const t = await turn(
        closed,
        'mcp-1',
        `Read a.txt. ${script([
          { ...call, times: 10 },
          { ...call, times: 15, batch: 5 },
        ])}`,
        TURN_MS,
      );
      expect(t, t.text).toMatchObject({ status: 200, text: 'FINAL: saw 25 tool results.' });
      const mine = (e: Record<string, unknown>) => e.sessionKey === 'agent:main:mcp-1';
      await waitFor('25 decisions', () => [...decisions.byId.values()].filter((d) => d.type === 'tool_decision' && mine(d)).length >= 25);
      await waitFor('20 outcomes', () => toolEvents.filter((e) => e.type === 'tool_outcome' && mine(e)).length >= 20);

      // The dispatchers are not guarded: each call is the MCP tool the model called through tool_call, under the model's own id.
      const calls = toolEvents.filter((e) => e.type === 'tool_call' && mine(e));
      expect(calls).toHaveLength(25);
      expect(new Set(calls.map((e) => e.toolName))).toEqual(new Set(['counting__read']));
      expect(calls.every((e) => /^call_\d+_\d+$/.test(e.toolCallId as string))).toBe(true);
      const byId = new Map([...decisions.byId.values()].filter((d) => d.type === 'tool_decision' && mine(d)).map((d) => [d.toolCallId, d]));
      const decided = calls.map((e) => byId.get(e.toolCallId)!);
      expect(decided.map((d) => d.decision)).toEqual([...Array<string>(10).fill('allow'), ...Array<string>(10).fill('warn'), ...Array<string>(5).fill('block')]);
      const warn = decided[10]!;
      const block = decided[20]!;
      expect(warn).toMatchObject({ detector: 'generic_repeat', count: 10, notify: true });
      expect(decided.filter((d) => d.decision === 'warn' && d.notify === true)).toHaveLength(1);
      expect(block).toMatchObject({ detector: 'generic_repeat', count: 20 });

      // The MCP server received the 20 calls that ran, and loopguard its own result 20 times
      // (the same each time: not the dispatcher's wrapper, whose nonce is new every time).
      expect(
        readFileSync(mcpCalls, 'utf8')
          .split('\n')
          .filter((l) => l === 'read'),
      ).toHaveLength(20);
      const outcomes = toolEvents.filter((e) => e.type === 'tool_outcome' && mine(e));
      expect(outcomes).toHaveLength(20);
      expect(new Set(outcomes.map((e) => e.resultHash)).size).toBe(1);

      // What the model read: the server's text 20 times, the warning with the 11th result and no other, the block at 21.
      const results = toolResults(lastRequestSince(first));
      expect(results).toHaveLength(25);
      expect(results.slice(0, 20).every((r) => r.includes('export const retries = 3'))).toBe(true);
      expect(results.map((r, i) => (r.includes(warn.message as string) ? i : -1)).filter((i) => i >= 0)).toEqual([10]);
      expect(results[20]).toContain(block.message as string);
      expect(results.slice(21).every((r) => r.includes('[loopguard generic_repeat] Blocked'))).toBe(true);

      // Each model response is one turn on the wire, published whole before any of its calls ran.
      const turns = new Map<unknown, typeof calls>();
      for (const e of calls) turns.set(e.turnId, [...(turns.get(e.turnId) ?? []), e]);
      expect([...turns.values()].map((c) => c.length)).toEqual([...Array<number>(10).fill(1), 5, 5, 5]);
      for (const turnCalls of turns.values()) {
        const ids = new Set(turnCalls.map((e) => e.toolCallId));
        const lastCall = Math.max(...turnCalls.map((e) => toolEvents.indexOf(e)));
        const firstOutcome = toolEvents.findIndex((e) => e.type === 'tool_outcome' && ids.has(e.toolCallId));
        expect(firstOutcome === -1 || lastCall < firstOutcome).toBe(true);
      }
    },
    TURN_MS + 60_000,
  );

  it(
    "records as vetoes the calls OpenClaw's own detector blocked, which never reach before_tool_call",
    async () => {
      const mine = (e: Record<string, unknown>) => e.sessionKey === 'agent:main:veto-1';
      const vetoed = (e: Record<string, unknown>) => e.type === 'tool_outcome' && (e.openclaw as { veto?: boolean } | null)?.veto === true;
      // OpenClaw blocks the 21st (20 identical outcomes) and, as the second critical of the run, the 22nd, and then ends the run.
      await turn(open, 'veto-1', `Read hello.txt. ${script([{ tool: 'read', args: { path: 'hello.txt' }, times: 22 }])}`, TURN_MS);
      await waitFor('two vetoes', () => toolEvents.filter((e) => mine(e) && vetoed(e)).length >= 2);
      const calls = toolEvents.filter((e) => mine(e) && e.type === 'tool_call');
      const outcomes = toolEvents.filter((e) => mine(e) && e.type === 'tool_outcome' && !vetoed(e));
      const vetoes = toolEvents.filter((e) => mine(e) && vetoed(e));
      // loopguard allowed the 20 calls that reached it; their outcomes, and the two calls OpenClaw vetoed, are on its topic.
      expect(calls).toHaveLength(20);
      expect(outcomes.map((e) => e.toolCallId)).toEqual(calls.map((e) => e.toolCallId));
      expect(vetoes).toHaveLength(2);
      expect(vetoes.every((e) => e.toolName === 'read' && (e.resultHash ?? null) === null)).toBe(true);
      const seen = new Set(calls.map((e) => e.toolCallId));
      expect(new Set(vetoes.map((e) => e.toolCallId)).size).toBe(2);
      expect(vetoes.some((e) => seen.has(e.toolCallId))).toBe(false);
    },
    TURN_MS + 60_000,
  );

  it(
    'with the processor stopped, failure closed blocks and failure open allows, each after the timeout',
    async () => {
      processor.child.kill('SIGTERM');
      await processor.exited();
      const firstClosed = model.requests.length;
      const c = await turn(closed, 'down-closed', `Read. ${script([{ tool: 'read', args: { path: 'hello.txt' }, times: 1 }])}`, TURN_MS);
      expect(c.status, c.text).toBe(200);
      expect(toolResults(lastRequestSince(firstClosed))).toEqual([expect.stringContaining('the loop guard did not answer in 3000 ms and this runner fails closed')]);

      const firstOpen = model.requests.length;
      const o = await turn(open, 'down-open', `Read. ${script([{ tool: 'read', args: { path: 'hello.txt' }, times: 1 }])}`, TURN_MS);
      expect(o.status, o.text).toBe(200);
      expect(toolResults(lastRequestSince(firstOpen))).toEqual([expect.stringContaining('hello from the workspace')]);
    },
    2 * TURN_MS + 60_000,
  );
});
