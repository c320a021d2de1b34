// loopguard as an OpenClaw plugin (`loopguard/openclaw`; manifest: openclaw.plugin.json at the
// package root). A thin adapter over the SDK's runner: each hook maps to one runner call.
//
// - before_tool_call → beforeToolCall: block → `{block, blockReason}` (the reason is the
//   tool result the model reads); warn with notify → the warning is appended to that call's
//   result by the tool-result middleware; shadow → allowed, what would have happened logged.
// - after_tool_call → afterToolCall (OpenClaw's echo of a blocked call is not an outcome).
// - after_compaction → compacted: for the run it names, or (OpenClaw names none) for the run of
//   the session's next tool call; agent_end and session_end → runEnded.
// - before_dispatch → the dispatcher: a message from one of `botSenderIds` is decided, and a
//   suppressed one is handled (dropped, no reply); any other sender's is published as a
//   human_message and delivered.
// - A run loopguard ends: the runner blocks its later calls locally with the abort's message,
//   and the middleware marks the run's results `terminate` (OpenClaw's hint to stop after the
//   current tool batch; it ignores the hint on error results, which blocked calls are). No
//   plugin API ends a running turn.
import { randomUUID } from 'node:crypto';
import { runKeyOf } from '../../processors/toolLoop/events.js';
import type { RunRef } from '../../sdk/runner.js';
import { OPENCLAW_PLUGIN_ID } from '../../topology/config.js';
import { guardFor, type Guard } from './guard.js';
import type { AgentContext, OpenClawPluginApi, ToolResult } from './host.js';
import { channelEventOf } from './inbound.js';
import { outcomeOf } from './outcome.js';

/** Identity of a run from a hook's context: OpenClaw's runId, sessionKey and agentId. */
function runOf(ctx: AgentContext, runId?: string): RunRef {
  const id = ctx.runId ?? runId;
  return { sessionKey: ctx.sessionKey ?? ctx.sessionId ?? 'openclaw', ...(id ? { runId: id } : {}), ...(ctx.agentId ? { agentId: ctx.agentId } : {}) };
}

function registerToolHooks(api: OpenClawPluginApi, guard: Guard): void {
  api.on('before_tool_call', async (event, ctx) => {
    const run = runOf(ctx, event.runId);
    if (run.runId) guard.runs.set(run.runId, run);
    const toolCallId = ctx.toolCallId ?? event.toolCallId;
    const v = await guard.beforeToolCall({ ...run, toolName: event.toolName, args: event.params, ...(toolCallId ? { toolCallId } : {}) });
    if (v.wouldHave)
      guard.log.warn(`loopguard [shadow]: would ${v.wouldHave.decision} ${event.toolName} (${v.wouldHave.detector}, count ${v.wouldHave.count}): ${v.wouldHave.message}`);
    if (v.answeredBy === 'fail-open' || v.answeredBy === 'fail-closed')
      guard.log.warn(`loopguard: no decision in ${guard.config.timeoutMs} ms for ${event.toolName}: ${v.answeredBy}`);
    if (v.decision === 'block') return { block: true, blockReason: v.message ?? `[loopguard] "${event.toolName}" was blocked.` };
    if (v.decision === 'warn' && v.notify && v.message) guard.warnings.set(`${runKeyOf(run)}/${v.toolCallId}`, v.message);
    return undefined;
  });

  api.on('after_tool_call', async (event, ctx) => {
    const run = runOf(ctx, event.runId);
    const toolCallId = ctx.toolCallId ?? event.toolCallId ?? randomUUID();
    const key = `${runKeyOf(run)}/${toolCallId}`;
    const warning = guard.appended.get(key);
    guard.appended.delete(key);
    const outcome = outcomeOf(event, warning);
    if (outcome === undefined) return;
    const runner = await guard.connected();
    await runner.afterToolCall({ ...run, toolName: event.toolName, args: event.params, toolCallId }, outcome);
  });
}

function registerRunHooks(api: OpenClawPluginApi, guard: Guard): void {
  api.on('after_compaction', async (_event, ctx) => {
    const run = runOf(ctx);
    guard.log.info(`loopguard: session ${run.sessionKey} compacted${run.runId ? ` in run ${run.runId}` : ''}`);
    if (run.runId) return (await guard.connected()).compacted(run);
    guard.compactedSessions.add(run.sessionKey);
  });
  api.on('agent_end', async (event, ctx) => endRun(guard, runOf(ctx, event.runId)));
  api.on('session_end', async (_event, ctx) => {
    const ended = [...guard.runs.values()].filter((r) => r.sessionKey === (ctx.sessionKey ?? ctx.sessionId));
    for (const r of ended) await endRun(guard, r);
  });
  api.on('gateway_stop', () => guard.close());
}

async function endRun(guard: Guard, run: RunRef): Promise<void> {
  if (run.runId) guard.runs.delete(run.runId);
  guard.aborted.delete(runKeyOf(run));
  await (await guard.connected()).runEnded(run);
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
    if (v.answeredBy === 'fail-open' || v.answeredBy === 'fail-closed') guard.log.warn(`loopguard: no decision in ${guard.config.timeoutMs} ms for ${what}: ${v.answeredBy}`);
    if (v.deliver) return undefined;
    guard.log.warn(`loopguard: suppressed ${what}${v.reason ? ` (${v.reason}${v.cooldownUntil === null ? '' : ` until ${v.cooldownUntil}`})` : ''}`);
    return { handled: true };
  });
}

/** The warning a notify-warn asked for, appended to its call's result; an ended run's results stop it. */
function registerResultMiddleware(api: OpenClawPluginApi, guard: Guard): void {
  api.registerAgentToolResultMiddleware?.(
    async (event, ctx) => {
      const key = runKeyOf({ sessionKey: ctx.sessionKey ?? 'openclaw', ...(ctx.runId ? { runId: ctx.runId } : {}) });
      const warning = guard.warnings.get(`${key}/${event.toolCallId}`);
      guard.warnings.delete(`${key}/${event.toolCallId}`);
      if (warning !== undefined) guard.appended.set(`${key}/${event.toolCallId}`, warning);
      const stop = guard.aborted.has(key);
      if (warning === undefined && !stop) return undefined;
      const result: ToolResult = {
        ...event.result,
        content: warning === undefined ? event.result.content : [...event.result.content, { type: 'text', text: warning }],
        ...(stop ? { terminate: true } : {}),
      };
      return { result };
    },
    { runtimes: ['openclaw'] },
  );
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
    registerResultMiddleware(api, guard);
  },
};
