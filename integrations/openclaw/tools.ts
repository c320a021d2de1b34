// The tool hooks: every call the model makes is decided before it runs and its outcome
// published after, whichever way OpenClaw runs it — directly, as a turn of several calls
// (turns.ts), or behind Tool Search's dispatchers (dispatch.ts).
//
// - before_message_write (an assistant message asking for tool calls) → the turn is planned.
// - before_tool_call → the call's verdict (the whole turn's, at its first hook): block →
//   `{block, blockReason}`, the reason being the tool result the model reads; warn with notify →
//   the warning, appended by the result middleware to the result the model reads (for a call a
//   dispatcher made, the dispatcher's); shadow → allowed, what would have happened logged.
// - after_tool_call → the outcome, under the model's call (a `tool_call`'s target reports
//   through its inner call); a veto when OpenClaw's own detector blocked the call.
import { randomUUID } from 'node:crypto';
import { canonicalJson } from '../../processors/toolLoop/canonical.js';
import { runKeyOf } from '../../processors/toolLoop/events.js';
import type { RunRef } from '../../sdk/runner.js';
import { dispatchTarget, isDispatcher, isInnerCall, parentOf, TOOL_CALL, type ModelCall } from './dispatch.js';
import type { Guard, Tracked } from './guard.js';
import type { AfterToolCallEvent, AgentContext, BeforeToolCallEvent, OpenClawPluginApi, ToolResult } from './host.js';
import { reportedOf } from './outcome.js';
import { callsOf } from './turns.js';

/** Identity of a run from a hook's context: OpenClaw's runId, sessionKey and agentId. */
export function runOf(ctx: AgentContext, runId?: string): RunRef {
  const id = ctx.runId ?? runId;
  return { sessionKey: ctx.sessionKey ?? ctx.sessionId ?? 'openclaw', ...(id ? { runId: id } : {}), ...(ctx.agentId ? { agentId: ctx.agentId } : {}) };
}

/** What a before_tool_call asks: a call to decide (and where its warning is shown), or nothing. */
type Asked = { readonly call: ModelCall; readonly shownWith: string } | undefined;

/** The model's call a before_tool_call stands for; dispatchers and inner calls mapped as dispatch.ts says. */
function asked(guard: Guard, run: RunRef, event: BeforeToolCallEvent, toolCallId: string): Asked {
  const key = runKeyOf(run);
  if (isDispatcher(event.toolName)) {
    guard.openDispatch(run, toolCallId, event.toolName);
    const target = event.toolName === TOOL_CALL ? dispatchTarget(event.params) : undefined;
    return target === undefined ? undefined : { call: { toolCallId, ...target }, shownWith: toolCallId };
  }
  if (isInnerCall(toolCallId)) {
    const open = guard.dispatching.get(key);
    const parent = open === undefined ? undefined : parentOf(toolCallId, open.keys());
    const target = parent !== undefined && open?.get(parent) === TOOL_CALL ? guard.calls.get(`${key}/${parent}`) : undefined;
    // A `tool_call`'s target was decided at its dispatcher; its outcome is reported as the model's call.
    if (target !== undefined) {
      guard.calls.set(`${key}/${toolCallId}`, target);
      return undefined;
    }
    return { call: { toolCallId, toolName: event.toolName, args: event.params }, shownWith: parent ?? toolCallId };
  }
  return { call: { toolCallId, toolName: event.toolName, args: event.params }, shownWith: toolCallId };
}

function registerBefore(api: OpenClawPluginApi, guard: Guard): void {
  api.on('before_message_write', (event, ctx) => {
    if (ctx.sessionKey === undefined) return;
    const calls = callsOf(event.message);
    if (calls.length > 0) guard.turns.plan(ctx.sessionKey, { turnId: randomUUID(), calls });
  });

  api.on('before_tool_call', async (event, ctx) => {
    const run = runOf(ctx, event.runId);
    if (run.runId) guard.runs.set(run.runId, run);
    const key = runKeyOf(run);
    const a = asked(guard, run, event, ctx.toolCallId ?? event.toolCallId ?? randomUUID());
    if (a === undefined) return undefined;
    const { verdict: v, published } = await guard.decide(run, a.call);
    guard.calls.set(`${key}/${a.call.toolCallId}`, { call: published, reported: false });
    const name = published.toolName;
    if (v.wouldHave) guard.log.warn(`loopguard [shadow]: would ${v.wouldHave.decision} ${name} (${v.wouldHave.detector}, count ${v.wouldHave.count}): ${v.wouldHave.message}`);
    // While loopguard is unreachable the runner says so itself, once and then at a bounded rate.
    if ((v.answeredBy === 'fail-open' || v.answeredBy === 'fail-closed') && guard.connected().reachable)
      guard.log.warn(`loopguard: no decision in ${guard.config.timeoutMs} ms for ${name}: ${v.answeredBy}`);
    if (v.decision === 'block') return { block: true, blockReason: v.message ?? `[loopguard] "${name}" was blocked.` };
    if (v.decision === 'warn' && v.notify && v.message) {
      const at = `${key}/${a.shownWith}`;
      const earlier = guard.warnings.get(at);
      guard.warnings.set(at, earlier === undefined ? v.message : `${earlier}\n\n${v.message}`);
    }
    return undefined;
  });
}

/** Whether the call has the tool and arguments of the turn's call `triggerId` (as the turn's message named them). */
function sameAs(guard: Guard, run: RunRef, call: ModelCall, triggerId: string): boolean {
  const trigger = guard.turns.of(run.sessionKey, triggerId)?.calls.find((c) => c.toolCallId === triggerId);
  return trigger !== undefined && trigger.toolName === call.toolName && canonicalJson(trigger.args) === canonicalJson(call.args);
}

/**
 * The call an after_tool_call reports on when its before_tool_call never came (OpenClaw's own
 * detector vetoed it first): as its turn's message named it, else as the hook names it.
 */
function unasked(guard: Guard, run: RunRef, event: AfterToolCallEvent, toolCallId: string): Tracked | undefined {
  const planned = guard.turns.of(run.sessionKey, toolCallId)?.calls.find((c) => c.toolCallId === toolCallId);
  if (planned !== undefined) return { call: planned, reported: false };
  if (event.toolName === TOOL_CALL) {
    const target = dispatchTarget(event.params);
    return target === undefined ? undefined : { call: { toolCallId, ...target }, reported: false };
  }
  if (isDispatcher(event.toolName)) return undefined;
  const key = runKeyOf(run);
  const open = guard.dispatching.get(key);
  const parent = isInnerCall(toolCallId) && open !== undefined ? parentOf(toolCallId, open.keys()) : undefined;
  const target = parent !== undefined && open?.get(parent) === TOOL_CALL ? guard.calls.get(`${key}/${parent}`) : undefined;
  return target ?? { call: { toolCallId, toolName: event.toolName, args: event.params }, reported: false };
}

function registerAfter(api: OpenClawPluginApi, guard: Guard): void {
  api.on('after_tool_call', async (event, ctx) => {
    const run = runOf(ctx, event.runId);
    const toolCallId = ctx.toolCallId ?? event.toolCallId ?? randomUUID();
    const key = `${runKeyOf(run)}/${toolCallId}`;
    const warning = guard.appended.take(key);
    const tracked = guard.calls.take(key) ?? unasked(guard, run, event, toolCallId);
    if (isDispatcher(event.toolName)) guard.closeDispatch(run, toolCallId);
    if (tracked === undefined) return;
    const r = reportedOf(event, toolCallId, warning, (trigger) => sameAs(guard, run, tracked.call, trigger));
    if (r.kind === 'none') return;
    // A `tool_call` reports what its target did through the target's own hook; its own result
    // (the target's, wrapped for the model) only when the target never reported (OpenClaw
    // vetoed the dispatcher, or it failed before calling).
    if (event.toolName === TOOL_CALL && tracked.reported) return;
    if (event.toolName === TOOL_CALL && r.kind === 'outcome' && event.error === undefined) return;
    tracked.reported = true;
    await guard.connected().afterToolCall({ ...run, ...tracked.call }, r.outcome);
  });
}

/** The warning a notify-warn asked for, appended to the result the model reads; an ended run's results stop it. */
function registerResultMiddleware(api: OpenClawPluginApi, guard: Guard): void {
  api.registerAgentToolResultMiddleware?.(
    async (event, ctx) => {
      const run = runKeyOf(runOf(ctx));
      const key = `${run}/${event.toolCallId}`;
      const warning = guard.warnings.take(key);
      if (warning !== undefined) guard.appended.set(key, warning);
      const stop = guard.aborted.has(run);
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

export function registerToolHooks(api: OpenClawPluginApi, guard: Guard): void {
  registerBefore(api, guard);
  registerAfter(api, guard);
  registerResultMiddleware(api, guard);
}
