// What a bot message causes (docs/behaviour.md §3.3–§3.4), worked out from the conversation's
// state before it: the answer, and the pair and receiver states the message leads to, which
// `evolve` then puts in place. Nothing here changes state.
import { resolveBotLoop, type BotLoopConfig, type ResolvedBotLoop } from './config.js';
import { botPair, isTrackable, type BotMessage } from './events.js';
import {
  CONVERSATION_WINDOW_MS,
  MAX_PAIRS,
  MAX_RECEIVER_EVENTS,
  MAX_SEEN_IDS,
  REASONS,
  inCooldown,
  type ConversationState,
  type Cooldown,
  type PairState,
  type Reason,
  type ReceiverState,
} from './state.js';

export type Answer = { readonly decision: 'deliver' } | { readonly decision: 'suppress'; readonly cooldownUntil: number; readonly reason: Reason };

export interface BotVerdict {
  readonly answer: Answer;
  /** What to store; absent when the message changes nothing (untracked, or a repeated id). */
  readonly pair?: { readonly id: string; readonly state: PairState };
  readonly receiver?: { readonly id: string; readonly state: ReceiverState };
  /** Bounded collections that had to forget something for this message. */
  readonly dropped: readonly Drop[];
}

export type Drop = 'pair_event_id' | 'burst_event' | 'pair' | 'receiver';

const DELIVER: Answer = { decision: 'deliver' };
const UNTRACKED: BotVerdict = { answer: DELIVER, dropped: [] };
const EMPTY_PAIR: PairState = { timestamps: [], cooldown: null, seen: [], streamTime: Number.NEGATIVE_INFINITY };
const EMPTY_RECEIVER: ReceiverState = { events: [], cooldown: null };

export const pairIdOf = (e: BotMessage): string => botPair(e).join('\u0000');

export function decideMessage(state: ConversationState, e: BotMessage, config: BotLoopConfig): BotVerdict {
  const cfg = resolveBotLoop(config, e.channel, e.accountId, e.conversationId);
  if (!cfg.enabled || !isTrackable(e)) return UNTRACKED;
  const pairId = pairIdOf(e);
  const pair = state.pairs.get(pairId) ?? EMPTY_PAIR;
  const streamTime = Math.max(pair.streamTime, e.ts);
  const retention = cfg.windowMs + cfg.cooldownMs + (cfg.maxConversationBotEvents !== undefined ? CONVERSATION_WINDOW_MS : 0);
  const seen = forgetSeen(pair.seen, streamTime - retention);
  if (e.eventId !== undefined && seen.some(([id]) => id === e.eventId)) return { answer: repeatedAnswer(state, pair, e), dropped: [] };

  const dropped: Drop[] = [];
  if (!state.pairs.has(pairId) && state.pairs.size >= MAX_PAIRS) dropped.push('pair');
  const p = pairBudget(pair, e.ts, cfg);
  const receiver = cfg.maxConversationBotEvents !== undefined ? (state.receivers.get(e.receiverId) ?? EMPTY_RECEIVER) : undefined;
  if (receiver !== undefined && !state.receivers.has(e.receiverId) && state.receivers.size >= MAX_PAIRS) dropped.push('receiver');
  const c = receiver !== undefined ? conversationBudget(receiver, e, cfg, cfg.maxConversationBotEvents!, dropped) : undefined;
  const nextSeen = e.eventId === undefined ? seen : rememberSeen(seen, e.eventId, e.ts, dropped);
  return {
    answer: answer(p.suppressedBy, c?.suppressedBy ?? null),
    pair: { id: pairId, state: { timestamps: p.timestamps, cooldown: p.cooldown, seen: nextSeen, streamTime } },
    receiver: c !== undefined ? { id: e.receiverId, state: c.state } : undefined,
    dropped,
  };
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

/** Suppress with the later-ending cooldown (the pair's on a tie), else deliver. */
function answer(pair: Cooldown | null, conversation: Cooldown | null): Answer {
  if (pair === null && conversation === null) return DELIVER;
  if (conversation === null || (pair !== null && pair.until >= conversation.until)) return { decision: 'suppress', cooldownUntil: pair!.until, reason: REASONS.pairBudget };
  return { decision: 'suppress', cooldownUntil: conversation.until, reason: REASONS.conversationBudget };
}

/** A repeated eventId is recorded by neither budget: the answer is the state at its own time. */
function repeatedAnswer(state: ConversationState, pair: PairState, e: BotMessage): Answer {
  const receiver = state.receivers.get(e.receiverId);
  const p = inCooldown(pair.cooldown, e.ts) ? pair.cooldown : null;
  const c = receiver !== undefined && inCooldown(receiver.cooldown, e.ts) ? receiver.cooldown : null;
  return answer(p, c);
}

/** The cooldown an event at `t` starts, unless a later-ending one is already set. */
function trip(current: Cooldown | null, t: number, cooldownMs: number): Cooldown {
  const fresh = { start: t, until: t + cooldownMs };
  return current !== null && current.until > fresh.until ? current : fresh;
}

interface PairOutcome {
  readonly timestamps: readonly number[];
  readonly cooldown: Cooldown | null;
  readonly suppressedBy: Cooldown | null;
}

function pairBudget(pair: PairState, t: number, cfg: ResolvedBotLoop): PairOutcome {
  if (inCooldown(pair.cooldown, t)) return { timestamps: pair.timestamps, cooldown: pair.cooldown, suppressedBy: pair.cooldown };
  const from = t - cfg.windowMs;
  const timestamps: number[] = [];
  let count = 1;
  let placed = false;
  for (const x of pair.timestamps) {
    if (x <= from) continue;
    if (!placed && x > t) {
      timestamps.push(t);
      placed = true;
    }
    if (x <= t) count++;
    timestamps.push(x);
  }
  if (!placed) timestamps.push(t);
  if (count <= cfg.maxEventsPerWindow) return { timestamps, cooldown: pair.cooldown, suppressedBy: null };
  const cooldown = trip(pair.cooldown, t, cfg.cooldownMs);
  return { timestamps: timestamps.filter((x) => x > t), cooldown, suppressedBy: cooldown };
}

// Every unique tracked event is recorded and judged, also one inside its pair's cooldown; one
// inside this budget's own cooldown is suppressed by it without moving its end.
function conversationBudget(r: ReceiverState, e: BotMessage, cfg: ResolvedBotLoop, limit: number, dropped: Drop[]): { state: ReceiverState; suppressedBy: Cooldown | null } {
  const t = e.ts;
  const events = insertByTs(r.events, [t, e.senderId], dropped);
  if (inCooldown(r.cooldown, t)) return { state: { events, cooldown: r.cooldown }, suppressedBy: r.cooldown };
  const from = t - CONVERSATION_WINDOW_MS;
  let count = 0;
  const perSender = new Map<string, number>();
  for (const [ts, sender] of events) {
    if (ts <= from || ts > t) continue;
    count++;
    perSender.set(sender, (perSender.get(sender) ?? 0) + 1);
  }
  let busySenders = 0;
  for (const n of perSender.values()) if (n >= 2) busySenders++;
  if (count <= limit || busySenders < 2) return { state: { events, cooldown: r.cooldown }, suppressedBy: null };
  const cooldown = trip(r.cooldown, t, cfg.cooldownMs);
  return { state: { events, cooldown }, suppressedBy: cooldown };
}

/** Inserts keeping ascending ts (after equal ones), then keeps the newest MAX_RECEIVER_EVENTS. */
function insertByTs(events: ReceiverState['events'], item: readonly [number, string], dropped: Drop[]): ReceiverState['events'] {
  let i = events.length;
  while (i > 0 && events[i - 1]![0] > item[0]) i--;
  const next = events.slice(0, i);
  next.push(item);
  for (let j = i; j < events.length; j++) next.push(events[j]!);
  if (next.length <= MAX_RECEIVER_EVENTS) return next;
  dropped.push('burst_event');
  return next.slice(next.length - MAX_RECEIVER_EVENTS);
}
