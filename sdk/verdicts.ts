// What a client returns for a decision: pure mappings, so the rules that matter to callers
// (a shadow decision is obeyed as allow / deliver and reported as `wouldHave`, docs/behaviour.md
// §4.1; the reply's hop limit, §4.7) are specified without a broker.
import type { Evidence } from '../processors/kernel/evidence.js';
import type { BotDecision } from '../processors/botLoop/react.js';
import type { Reason } from '../processors/botLoop/state.js';
import type { RunAbort, ToolDecision } from '../processors/toolLoop/react.js';

export type { Evidence };

/**
 * The budget a block used up (docs/behaviour.md §5): the run's calls to one tool (`count` is
 * how many), the run's calls in all (`count`: how many), or its time (`count`: seconds).
 */
export type Budget = 'tool_calls' | 'run_calls' | 'run_time';

const BUDGETS: Readonly<Record<string, Budget>> = { tool_call_budget: 'tool_calls', run_call_budget: 'run_calls', run_time_budget: 'run_time' };

/** Which budget a decision's detector names, if any. */
export const budgetOf = (detector: string | null): Budget | null => (detector !== null && Object.hasOwn(BUDGETS, detector) ? BUDGETS[detector]! : null);

/** What a shadow-mode tool decision would have done in enforce mode. */
export interface ToolWouldHave {
  readonly decision: 'warn' | 'block';
  readonly detector: string | null;
  readonly count: number | null;
  readonly message: string | null;
  readonly evidence: Evidence | null;
  /** A block by a budget: which one. */
  readonly budget: Budget | null;
}

export interface ToolVerdict {
  /** What to do. A shadow decision is always `allow` (see `wouldHave`). */
  readonly decision: 'allow' | 'warn' | 'block';
  readonly toolCallId: string;
  /** Block: return this to the model as the tool's result. Warn with notify: show it to the model. */
  readonly message: string | null;
  readonly notify: boolean;
  readonly detector: string | null;
  readonly count: number | null;
  /** Warn / block: the tool calls behind `count` (§4.5). */
  readonly evidence: Evidence | null;
  /** A block by a budget (§5): which one is used up; null for any other answer. */
  readonly budget: Budget | null;
  /** Shadow mode: the warn or block that enforce mode would have answered; null otherwise. */
  readonly wouldHave: ToolWouldHave | null;
  /**
   * A call of a turn not run because another call of the turn was blocked (docs/behaviour.md
   * §6.4): that call's toolCallId (`''` when it had none); null for any other answer.
   */
  readonly turnBlockedBy: string | null;
  /** Who answered: loopguard itself, a known abort, or the failure policy after the timeout. */
  readonly answeredBy: 'loopguard' | 'run-aborted' | 'fail-open' | 'fail-closed';
}

export interface RunAbortNotice {
  readonly runKey: string;
  /** `compaction_loop_persisted` (§2.6) or `block_escalation` (§4.2). */
  readonly detector: RunAbort['detector'];
  readonly toolName: string;
  readonly count: number;
  readonly message: string;
  readonly evidence: Evidence | null;
}

const ALLOW = { decision: 'allow', message: null, notify: false, detector: null, count: null, evidence: null, budget: null, wouldHave: null, turnBlockedBy: null } as const;

export function toolVerdictOf(d: ToolDecision, toolCallId: string): ToolVerdict {
  if (d.decision === 'allow') return { ...ALLOW, toolCallId, answeredBy: 'loopguard' };
  const evidence = d.evidence ?? null;
  if (d.shadow === true) {
    const wouldHave = { decision: d.decision, detector: d.detector, count: d.count, message: d.message, evidence, budget: budgetOf(d.detector) };
    return { ...ALLOW, toolCallId, wouldHave, answeredBy: 'loopguard' };
  }
  return {
    decision: d.decision,
    toolCallId,
    message: d.message,
    notify: d.notify === true,
    detector: d.detector,
    count: d.count,
    evidence,
    budget: budgetOf(d.detector),
    wouldHave: null,
    turnBlockedBy: d.turnBlockedBy ?? null,
    answeredBy: 'loopguard',
  };
}

/** The local answer for a call of a run loopguard has aborted: blocked with the abort's grounds (§4.2). */
export function abortedVerdict(a: RunAbortNotice, toolCallId: string): ToolVerdict {
  return {
    decision: 'block',
    toolCallId,
    message: a.message,
    notify: true,
    detector: a.detector,
    count: a.count,
    evidence: a.evidence,
    budget: null,
    wouldHave: null,
    turnBlockedBy: null,
    answeredBy: 'run-aborted',
  };
}

/** Why the failure policy answered: loopguard could not be reached, or it was and did not decide in time. */
export type NoAnswer = 'unreachable' | 'timeout';

/** The failure policy's answer for a tool call loopguard did not decide within `timeoutMs`. */
export function toolFailureVerdict(failure: 'open' | 'closed', toolName: string, toolCallId: string, timeoutMs: number, why: NoAnswer = 'timeout'): ToolVerdict {
  const none = { toolCallId, detector: null, count: null, evidence: null, budget: null, wouldHave: null, turnBlockedBy: null };
  if (failure === 'open') return { ...none, decision: 'allow', message: null, notify: false, answeredBy: 'fail-open' };
  const what = why === 'unreachable' ? 'the loop guard could not be reached (its Kafka or schema registry is down)' : `the loop guard did not answer in ${timeoutMs} ms`;
  return {
    ...none,
    decision: 'block',
    notify: true,
    answeredBy: 'fail-closed',
    message: `[loopguard] "${toolName}" was not run: ${what} and this runner fails closed. Try again shortly.`,
  };
}

export function abortNoticeOf(d: RunAbort): RunAbortNotice {
  return { runKey: d.key, detector: d.detector, toolName: d.toolName, count: d.count, message: d.message, evidence: d.evidence ?? null };
}

/** What a shadow-mode suppress would have done in enforce mode. */
export interface InboundWouldHave {
  readonly reason: Reason | null;
  readonly cooldownUntil: number | null;
  readonly evidence: Evidence | null;
}

export interface InboundVerdict {
  /** Deliver the message to the bot, or drop it. A shadow decision always delivers (see `wouldHave`). */
  readonly deliver: boolean;
  /** Suppress: why. `human_message`: a person wrote it (published, never held). `not_a_bot_message`: the adapter ignored it. */
  readonly reason: 'not_a_bot_message' | 'human_message' | Reason | null;
  readonly cooldownUntil: number | null;
  /** Suppress: the window behind it (§4.5). */
  readonly evidence: Evidence | null;
  /** Shadow mode: the suppress that enforce mode would have answered; null otherwise. */
  readonly wouldHave: InboundWouldHave | null;
  /**
   * With a hop limit configured (§4.7): the bounce budget to stamp on the bot's reply to this
   * message (on Matrix, `withBounceLimit(content, replyHopLimit)`); null: stamp nothing.
   */
  readonly replyHopLimit: number | null;
  readonly answeredBy: 'adapter' | 'local-cooldown' | 'loopguard' | 'fail-open' | 'fail-closed';
}

const DELIVER = { deliver: true, reason: null, cooldownUntil: null, evidence: null, wouldHave: null, replyHopLimit: null } as const;

export function inboundVerdictOf(d: BotDecision): InboundVerdict {
  const replyHopLimit = d.replyHopLimit ?? null;
  if (d.decision === 'deliver') return { ...DELIVER, replyHopLimit, answeredBy: 'loopguard' };
  const suppress = { reason: d.reason, cooldownUntil: d.cooldownUntil, evidence: d.evidence ?? null };
  if (d.shadow === true) return { ...DELIVER, wouldHave: suppress, replyHopLimit, answeredBy: 'loopguard' };
  return { deliver: false, ...suppress, wouldHave: null, replyHopLimit, answeredBy: 'loopguard' };
}

/** A verdict that needs no decision: an ignored payload, or a person's message. */
export const adapterVerdict = (reason: 'not_a_bot_message' | 'human_message'): InboundVerdict => ({ ...DELIVER, reason, answeredBy: 'adapter' });

/** The failure policy's answer when no decision arrived in time. */
export const failureVerdict = (failure: 'open' | 'closed'): InboundVerdict => ({
  ...DELIVER,
  deliver: failure === 'open',
  answeredBy: failure === 'open' ? 'fail-open' : 'fail-closed',
});
