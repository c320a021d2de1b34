// The demo's bundled traffic: deterministic scenarios in the JSON form of docs/behaviour.md §1, each the
// kind of loop loopguard exists to stop, next to traffic it must leave alone.
const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);

export interface Scenario {
  readonly title: string;
  readonly events: readonly Record<string, unknown>[];
}

function run(runId: string, start: number, agentId = 'main') {
  let ts = start;
  let n = 0;
  const base = { sessionKey: `agent:${agentId}:${runId}`, runId, agentId };
  return {
    call: (toolName: string, args: unknown) => ({ type: 'tool_call', ts: (ts += 900), ...base, toolCallId: `${runId}-${++n}`, toolName, args }),
    outcome: (toolName: string, args: unknown, result: unknown) => ({ type: 'tool_outcome', ts: (ts += 600), ...base, toolCallId: `${runId}-${n}`, toolName, args, result }),
    compaction: () => ({ type: 'compaction', ts: (ts += 500), ...base }),
    end: () => ({ type: 'run_end', ts: (ts += 500), ...base }),
  };
}

const text = (t: string) => ({ content: [{ type: 'text', text: t }] });

function stuckReader(): Scenario {
  const r = run('run-stuck-reader', T0);
  const args = { path: 'src/config.ts' };
  const events = [];
  for (let i = 0; i < 20; i++) events.push(r.call('read', args), r.outcome('read', args, text('export const retries = 3;')));
  // The runner obeys: a blocked call's outcome is the block itself, echoed back.
  const blocked = { details: { status: 'blocked', deniedReason: 'tool-loop' } };
  for (let i = 0; i < 2; i++) events.push(r.call('read', args), r.outcome('read', args, blocked));
  return { title: 'An agent stuck re-reading the same file', events: [...events, r.end()] };
}

function progressingPoll(): Scenario {
  const r = run('run-build-poll', T0 + 1);
  const args = { action: 'poll', sessionId: 'build-42' };
  const events = [];
  for (let i = 0; i < 25; i++) events.push(r.call('process', args), r.outcome('process', args, { details: { status: 'running', aggregated: `compiled ${i * 4} of 100 modules` } }));
  events.push(r.call('process', args), r.outcome('process', args, { details: { status: 'completed', exitCode: 0, aggregated: 'build ok' } }));
  return { title: 'A long build polled while it makes progress', events: [...events, r.end()] };
}

function pingPong(): Scenario {
  const r = run('run-ping-pong', T0 + 2);
  const a = { path: 'tests/' };
  const b = { pattern: 'TODO', path: 'tests/' };
  const events = [];
  for (let i = 0; i < 21; i++) {
    if (i % 2 === 0) events.push(r.call('list_dir', a), r.outcome('list_dir', a, text('a.test.ts b.test.ts')));
    else events.push(r.call('grep', b), r.outcome('grep', b, text('no matches')));
  }
  return { title: 'Two tools called in turn, getting nowhere (ping-pong)', events: [...events, r.end()] };
}

function compactionLoop(): Scenario {
  const r = run('run-compaction', T0 + 3);
  const args = { command: 'npm test' };
  const fail = { details: { status: 'failed', exitCode: 1, aggregated: 'FAIL src/app.test.ts: expected 2, got 3' } };
  const events = [r.call('exec', args), r.outcome('exec', args, fail), r.compaction()];
  for (let i = 0; i < 3; i++) events.push(r.call('exec', args), r.outcome('exec', args, fail));
  events.push(r.call('exec', args));
  return { title: 'A loop that survives context compaction', events };
}

// The model keeps retrying a call that is blocked; the starter config ends the run at the
// fifth block (loopguard.toolPolicy.escalation).
function escalation(): Scenario {
  const r = run('run-stubborn', T0 + 4);
  const args = { url: 'https://status.example.com/api/deploys/981' };
  const pending = { details: { status: 200, body: '{"state":"pending"}' } };
  const blocked = { details: { status: 'blocked', deniedReason: 'tool-loop' } };
  const events = [];
  for (let i = 0; i < 20; i++) events.push(r.call('web_fetch', args), r.outcome('web_fetch', args, pending));
  for (let i = 0; i < 5; i++) events.push(r.call('web_fetch', args), r.outcome('web_fetch', args, blocked));
  events.push(r.call('web_fetch', args));
  return { title: 'A model that keeps retrying a blocked call (escalation ends the run)', events };
}

// The same stuck reader as above, from an agent the starter config runs in shadow mode: every
// decision is made and published, marked shadow, and the runner goes on as if allowed.
function shadowReader(): Scenario {
  const r = run('run-canary-reader', T0 + 5, 'canary');
  const args = { path: 'src/config.ts' };
  const events = [];
  for (let i = 0; i < 22; i++) events.push(r.call('read', args), r.outcome('read', args, text('export const retries = 3;')));
  return { title: 'The stuck reader again, from an agent in shadow mode (decided, reported, not enforced)', events: [...events, r.end()] };
}

// A research agent that keeps searching with new words each time: no repetition rule sees a
// loop, but the starter gives the researcher agent 5 web searches per run (a budget, §5), so
// the sixth and every later one is blocked with tool_call_budget.
function searchBudget(): Scenario {
  const r = run('run-researcher', T0 + 6, 'researcher');
  const topics = ['kafka exactly once', 'kafka transactions', 'kafka idempotent producer', 'kafka eos v2', 'kafka read committed', 'kafka fencing', 'kafka zombie producer'];
  const events = topics.flatMap((q) => [r.call('web_search', { q }), r.outcome('web_search', { q }, text(`10 results for ${q}`))]);
  return { title: 'An agent searching on and on with new queries (a per-run budget stops it)', events: [...events, r.end()] };
}

// A Matrix bot answered by another every two minutes (as the deploy bot's account sees it): far
// under the pair budget, but the starter's slow-loop budget (60 bot messages in 3 h with no
// person writing) stops it, and a person writing in the room ends the cooldown. It runs in the
// two hours before the other scenes, so at the demo's newest event only the storm's cooldown runs.
function slowLoop(): Scenario {
  const room = { channel: 'matrix', accountId: '@deploy:acme.org', conversationId: '!ops:acme.org' };
  const at = (i: number) => T0 - 140 * 60_000 + i * 120_000;
  const events: Record<string, unknown>[] = [];
  const msg = (i: number) => ({ type: 'bot_message', ts: at(i), ...room, senderId: '@triage:acme.org', receiverId: '@deploy:acme.org', eventId: `$slow-${i}` });
  for (let i = 0; i < 63; i++) events.push(msg(i));
  events.push({ type: 'human_message', ts: at(63), ...room, senderId: '@alice:acme.org', eventId: '$alice-1' });
  for (let i = 64; i < 66; i++) events.push(msg(i));
  return { title: 'A slow loop between two bots, ended by a person', events };
}

function bot(ts: number, senderId: string, receiverId: string, i: number, conversationId: string) {
  return { type: 'bot_message', ts, channel: 'slack', accountId: 'T0ACME', conversationId, senderId, receiverId, eventId: `${conversationId}-${i}` };
}

function botStorm(): Scenario {
  const events = [];
  for (let i = 0; i < 30; i++) events.push(i % 2 ? bot(T0 + i * 500, 'B0TRIAGE', 'B0DEPLOY', i, 'C0ALERTS') : bot(T0 + i * 500, 'B0DEPLOY', 'B0TRIAGE', i, 'C0ALERTS'));
  return { title: 'Two Slack bots answering each other in a storm', events };
}

// Over within seconds, so the storm's cooldown still runs at the newest event (a console
// watching the demo shows it).
function botExchange(): Scenario {
  const events = [];
  for (let i = 0; i < 6; i++) events.push(i % 2 ? bot(T0 + i * 4_000, 'B0SUMMARY', 'B0STANDUP', i, 'C0TEAM') : bot(T0 + i * 4_000, 'B0STANDUP', 'B0SUMMARY', i, 'C0TEAM'));
  return { title: 'A short, legitimate exchange between two bots', events };
}

export const demoScenarios = (): Scenario[] => [
  stuckReader(),
  progressingPoll(),
  pingPong(),
  compactionLoop(),
  escalation(),
  shadowReader(),
  searchBudget(),
  botStorm(),
  botExchange(),
  slowLoop(),
];

/** examples/config/starter.json5, which `start` runs with no config: the demo shows what it does. */
export const demoConfig = {
  tools: { loopDetection: { enabled: true } },
  channels: { defaults: { botLoopProtection: { enabled: true } } },
  loopguard: {
    toolPolicy: { escalation: { abortAfterBlocks: 5 }, agents: { canary: { mode: 'shadow' }, researcher: { tools: { web_search: { maxCalls: 5 } } } } },
    botPolicy: { slowLoop: {}, humanReset: true },
  },
};
