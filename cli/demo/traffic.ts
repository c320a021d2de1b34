// The demo's bundled traffic: deterministic scenarios in the JSON form of docs/behaviour.md §1, each the
// kind of loop loopguard exists to stop, next to traffic it must leave alone.
const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);

export interface Scenario {
  readonly title: string;
  readonly events: readonly Record<string, unknown>[];
}

function run(runId: string, start: number) {
  let ts = start;
  let n = 0;
  const base = { sessionKey: `agent:main:${runId}`, runId, agentId: 'main' };
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

export const demoScenarios = (): Scenario[] => [stuckReader(), progressingPoll(), pingPong(), compactionLoop(), botStorm(), botExchange()];

/** Detection on, the way the gateway docs recommend for smaller models. */
export const demoConfig = { tools: { loopDetection: { enabled: true } } };
