// What a channel event causes (docs/behaviour.md §3.3–§3.4, §4), worked out from the
// conversation's state before it: the answer, and the states the event leads to, which
// `evolve` then puts in place. Nothing here changes state.
import { conversationBudget, pairBudget, type Drop } from './budgets.js';
import { resolveBotLoop, type BotLoopConfig } from './config.js';
import { botPair, isTrackable, type BotMessage, type HumanMessage } from './events.js';
import type { ResolvedBotPolicy } from './policy.js';
import { humanArrives, isRepeatedHuman, resetPairs, resetReceivers, slowLoopBudget } from './slowLoop.js';
import {
  CONVERSATION_WINDOW_MS,
  EMPTY_SLOW_LOOP,
  MAX_PAIRS,
  MAX_SEEN_IDS,
  REASONS,
  inCooldown,
  type BotEvidence,
  type ConversationState,
  type Cooldown,
  type PairState,
  type Reason,
  type ReceiverState,
  type SlowLoopState,
} from './state.js';

export type { Drop } from './budgets.js';

export type Answer =
  { readonly decision: 'deliver' } | { readonly decision: 'suppress'; readonly cooldownUntil: number; readonly reason: Reason; readonly evidence: BotEvidence | null };

export interface BotVerdict {
  readonly answer: Answer;
  /** §4.1: the channel's policy is in shadow mode. */
  readonly shadow: boolean;
  /** §4.7: with a hop limit configured, what to stamp on the reply; else undefined. */
  readonly replyHopLimit: number | undefined;
  /** What to store; absent when the event changes nothing (untracked, or a repeated id). */
  readonly pair?: { readonly id: string; readonly state: PairState };
  readonly receiver?: { readonly id: string; readonly state: ReceiverState };
  readonly slow?: SlowLoopState;
  /** Human reset (§4.6): every pair and receiver of the conversation, as the reset leaves them. */
  readonly reset?: { readonly pairs: ReadonlyMap<string, PairState>; readonly receivers: ReadonlyMap<string, ReceiverState> };
  /** Bounded collections that had to forget something for this event. */
  readonly dropped: readonly Drop[];
}

const DELIVER: Answer = { decision: 'deliver' };
export const IGNORED: BotVerdict = { answer: DELIVER, shadow: false, replyHopLimit: undefined, dropped: [] };
const EMPTY_PAIR: PairState = { timestamps: [], cooldown: null, seen: [], streamTime: Number.NEGATIVE_INFINITY };
const EMPTY_RECEIVER: ReceiverState = { events: [], cooldown: null };

export const pairIdOf = (e: BotMessage): string => botPair(e).join('\u0000');

/** A reason that suppresses, with the cooldown end it reports. */
interface Suppression {
  readonly until: number;
  readonly reason: Reason;
  readonly evidence: BotEvidence | null;
}

const by = (reason: Reason, c: Cooldown | null | undefined): Suppression | null => (c ? { until: c.until, reason, evidence: c.evidence } : null);

/** The latest cooldownUntil wins; on a tie the first in §4.6's order (callers pass them in it). */
function answer(suppressions: ReadonlyArray<Suppression | null>): Answer {
  let best: Suppression | null = null;
  for (const s of suppressions) if (s !== null && (best === null || s.until > best.until)) best = s;
  return best === null ? DELIVER : { decision: 'suppress', cooldownUntil: best.until, reason: best.reason, evidence: best.evidence };
}

/** §4.7: a message carrying hopLimit ≤ 1 is suppressed, with no cooldown. */
function hopLimited(e: BotMessage, policy: ResolvedBotPolicy): Suppression | null {
  if (policy.hopLimit === undefined || e.hopLimit === undefined || e.hopLimit > 1) return null;
  return { until: e.ts, reason: REASONS.hopLimit, evidence: { since: e.ts, count: 1, senders: [e.senderId] } };
}

function replyHopLimitOf(e: BotMessage, policy: ResolvedBotPolicy): number | undefined {
  const max = policy.hopLimit?.maxOutgoing;
  if (max === undefined) return undefined;
  return e.hopLimit === undefined ? max : Math.max(0, Math.min(e.hopLimit - 1, max));
}

export function decideMessage(state: ConversationState, e: BotMessage, config: BotLoopConfig, policy: ResolvedBotPolicy): BotVerdict {
  const shadow = policy.mode === 'shadow';
  const replyHopLimit = replyHopLimitOf(e, policy);
  const hop = hopLimited(e, policy);
  const cfg = resolveBotLoop(config, e.channel, e.accountId, e.conversationId);
  if (!cfg.enabled || !isTrackable(e)) return { answer: answer([hop]), shadow, replyHopLimit, dropped: [] };
  const pairId = pairIdOf(e);
  const pair = state.pairs.get(pairId) ?? EMPTY_PAIR;
  const streamTime = Math.max(pair.streamTime, e.ts);
  const retention = cfg.windowMs + cfg.cooldownMs + (cfg.maxConversationBotEvents !== undefined ? CONVERSATION_WINDOW_MS : 0);
  const seen = forgetSeen(pair.seen, streamTime - retention);
  if (e.eventId !== undefined && seen.some(([id]) => id === e.eventId)) return { answer: repeatedAnswer(state, pair, e, hop), shadow, replyHopLimit, dropped: [] };

  const dropped: Drop[] = [];
  if (!state.pairs.has(pairId) && state.pairs.size >= MAX_PAIRS) dropped.push('pair');
  const p = pairBudget(pair, e, cfg);
  const receiver = cfg.maxConversationBotEvents !== undefined ? (state.receivers.get(e.receiverId) ?? EMPTY_RECEIVER) : undefined;
  if (receiver !== undefined && !state.receivers.has(e.receiverId) && state.receivers.size >= MAX_PAIRS) dropped.push('receiver');
  const c = receiver !== undefined ? conversationBudget(receiver, e, cfg, cfg.maxConversationBotEvents!, dropped) : undefined;
  const s = policy.slowLoop !== undefined ? slowLoopBudget(state.slow ?? EMPTY_SLOW_LOOP, e, policy.slowLoop, dropped) : undefined;
  const nextSeen = e.eventId === undefined ? seen : rememberSeen(seen, e.eventId, e.ts, dropped);
  return {
    answer: answer([by(REASONS.pairBudget, p.suppressedBy), by(REASONS.conversationBudget, c?.suppressedBy), by(REASONS.slowLoop, s?.suppressedBy), hop]),
    shadow,
    replyHopLimit,
    pair: { id: pairId, state: { timestamps: p.timestamps, cooldown: p.cooldown, seen: nextSeen, streamTime } },
    receiver: c !== undefined ? { id: e.receiverId, state: c.state } : undefined,
    slow: s?.state,
    dropped,
  };
}

/** A person wrote in the conversation (§4.6); ignored unless the channel's policy uses it. */
export function decideHuman(state: ConversationState, e: HumanMessage, policy: ResolvedBotPolicy): BotVerdict {
  if (policy.slowLoop === undefined && !policy.humanReset) return IGNORED;
  if (e.channel === '' || e.accountId === '' || e.conversationId === '' || isRepeatedHuman(state.slow, e)) return IGNORED;
  const dropped: Drop[] = [];
  const slow = humanArrives(state.slow ?? EMPTY_SLOW_LOOP, e, dropped);
  const reset = policy.humanReset ? { pairs: resetPairs(state.pairs, e.ts), receivers: resetReceivers(state.receivers, e.ts) } : undefined;
  return { ...IGNORED, slow, reset, dropped };
}

/** Ids whose event time is older than `before` are forgotten; `seen` is kept ascending by ts. */
function forgetSeen(seen: PairState['seen'], before: number): PairState['seen'] {
  let i = 0;
  while (i < seen.length && seen[i]![1] < before) i++;
  return i === 0 ? seen : seen.slice(i);
}

function rememberSeen(seen: PairState['seen'], id: string, ts: number, dropped: Drop[]): PairState['seen'] {
  let i = seen.length;
  while (i > 0 && seen[i - 1]![1] > ts) i--;
  const next = seen.slice();
  next.splice(i, 0, [id, ts]);
  if (next.length <= MAX_SEEN_IDS) return next;
  dropped.push('pair_event_id');
  return next.slice(next.length - MAX_SEEN_IDS);
}

/** A repeated eventId is recorded by no budget: the answer is the state at its own time. */
function repeatedAnswer(state: ConversationState, pair: PairState, e: BotMessage, hop: Suppression | null): Answer {
  const receiver = state.receivers.get(e.receiverId);
  const at = (c: Cooldown | null | undefined) => (c !== undefined && inCooldown(c, e.ts) ? c : null);
  return answer([by(REASONS.pairBudget, at(pair.cooldown)), by(REASONS.conversationBudget, at(receiver?.cooldown)), by(REASONS.slowLoop, at(state.slow?.cooldown)), hop]);
}
