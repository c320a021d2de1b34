// loopguard as an OpenClaw plugin (`loopguard/openclaw`; manifest: openclaw.plugin.json at the
// package root). A thin adapter over the SDK's runner: each hook maps to runner calls.
//
// - The tool hooks (tools.ts): every call the model makes is decided before it runs, a turn of
//   several calls all at once, and its outcome published after (a veto when OpenClaw's own
//   detector blocked it).
// - after_compaction → compacted: for the run it names, or (OpenClaw names none) for the run of
//   the session's next tool call; agent_end and session_end → runEnded.
// - before_dispatch → the dispatcher: a message from one of `botSenderIds` is decided, and a
//   suppressed one is handled (dropped, no reply); any other sender's is published as a
//   human_message and delivered.
// - A run loopguard ends: the runner blocks its later calls locally with the abort's message,
//   and the middleware marks the run's results `terminate` (OpenClaw's hint to stop after the
//   current tool batch; it ignores the hint on error results, which blocked calls are). No
//   plugin API ends a running turn.
import { runKeyOf } from '../../processors/toolLoop/events.js';
import type { RunRef } from '../../sdk/runner.js';
import { OPENCLAW_PLUGIN_ID } from '../../topology/config.js';
import { guardFor, type Guard } from './guard.js';
import type { OpenClawPluginApi } from './host.js';
import { channelEventOf } from './inbound.js';
import { registerToolHooks, runOf } from './tools.js';

function registerRunHooks(api: OpenClawPluginApi, guard: Guard): void {
  api.on('after_compaction', async (_event, ctx) => {
    const run = runOf(ctx);
    guard.log.info(`loopguard: session ${run.sessionKey} compacted${run.runId ? ` in run ${run.runId}` : ''}`);
    if (run.runId) return guard.connected().compacted(run);
    guard.compactedSessions.add(run.sessionKey);
  });
  api.on('agent_end', async (event, ctx) => endRun(guard, runOf(ctx, event.runId)));
  api.on('session_end', async (_event, ctx) => {
    const session = ctx.sessionKey ?? ctx.sessionId;
    if (session !== undefined) guard.turns.forget(session);
    const ended = [...guard.runs.values()].filter((r) => r.sessionKey === session);
    for (const r of ended) await endRun(guard, r);
  });
  api.on('gateway_stop', () => guard.close());
}

async function endRun(guard: Guard, run: RunRef): Promise<void> {
  if (run.runId) guard.runs.delete(run.runId);
  guard.aborted.delete(runKeyOf(run));
  guard.dispatching.delete(runKeyOf(run));
  await guard.connected().runEnded(run);
}

/** Inbound messages, when the operator named the other bots: no list, no hook (nothing to guard). */
function registerDispatchHook(api: OpenClawPluginApi, guard: Guard): void {
  if (guard.botSenders.size === 0) return;
  api.on('before_dispatch', async (event, ctx) => {
    const m = channelEventOf(event, ctx, guard.botSenders, Date.now());
    if (m === undefined) return undefined;
    const v = await guard.inbound(m);
    const what = `the message from ${m.senderId} in ${m.channel} ${m.conversationId}`;
    if (v.wouldHave) guard.log.warn(`loopguard [shadow]: would suppress ${what} (${v.wouldHave.reason}) until ${v.wouldHave.cooldownUntil}`);
    if ((v.answeredBy === 'fail-open' || v.answeredBy === 'fail-closed') && guard.inboundReachable())
      guard.log.warn(`loopguard: no decision in ${guard.config.timeoutMs} ms for ${what}: ${v.answeredBy}`);
    if (v.deliver) return undefined;
    guard.log.warn(`loopguard: suppressed ${what}${v.reason ? ` (${v.reason}${v.cooldownUntil === null ? '' : ` until ${v.cooldownUntil}`})` : ''}`);
    return { handled: true };
  });
}

export default {
  id: OPENCLAW_PLUGIN_ID,
  name: 'loopguard',
  description: 'Stops agents that loop: every tool call, and every message from another bot, is checked by a loopguard processor over Kafka.',
  register(api: OpenClawPluginApi): void {
    const guard = guardFor(api);
    registerToolHooks(api, guard);
    registerRunHooks(api, guard);
    registerDispatchHook(api, guard);
  },
};
