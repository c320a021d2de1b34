// Folding one bot message into its conversation's state: the pair budget (SPEC §3.3) and the
// conversation burst budget (§3.4). The answer is computed here and kept in `effect`.
import { resolveBotLoop, type BotLoopConfig, type ResolvedBotLoop } from './config.js';
import { isTrackable, type BotMessage } from './events.js';
import {
  CONVERSATION_WINDOW_MS, MAX_RECEIVER_EVENTS, MAX_SEEN_IDS, REASONS, inCooldown,
  type BotEffect, type ConversationState, type Cooldown, type PairState, type ReceiverState,
} from './state.js';

const DELIVER: BotEffect = { kind: 'deliver' };
const EMPTY_PAIR: PairState = { timestamps: [], cooldown: null, seen: [], streamTime: Number.NEGATIVE_INFINITY };
const EMPTY_RECEIVER: ReceiverState = { events: [], cooldown: null };

export const pairIdOf = (e: BotMessage): string => (e.senderId < e.receiverId ? `${e.senderId}\u0000${e.receiverId}` : `${e.receiverId}\u0000${e.senderId}`);

export function evolveConversation(state: ConversationState, e: BotMessage, config: BotLoopConfig): ConversationState {
  const cfg = resolveBotLoop(config, e.channel, e.accountId, e.conversationId);
  if (!cfg.enabled || !isTrackable(e)) return state.effect === DELIVER ? state : { ...state, effect: DELIVER };
  const pairId = pairIdOf(e);
  const pair = state.pairs[pairId] ?? EMPTY_PAIR;
  const streamTime = Math.max(pair.streamTime, e.ts);
  const retention = cfg.windowMs + cfg.cooldownMs + (cfg.maxConversationBotEvents !== undefined ? CONVERSATION_WINDOW_MS : 0);
  const seen = forgetSeen(pair.seen, streamTime - retention);
  if (e.eventId !== undefined && seen.some(([id]) => id === e.eventId)) return { ...state, effect: repeatedAnswer(state, pair, e) };

  const p = pairBudget(pair, e.ts, cfg);
  const receiver = cfg.maxConversationBotEvents !== undefined ? state.receivers[e.receiverId] ?? EMPTY_RECEIVER : undefined;
  const c = receiver !== undefined ? conversationBudget(receiver, e, cfg, cfg.maxConversationBotEvents!, p.suppressedBy !== null && !p.tripped) : undefined;

  const nextSeen = e.eventId === undefined ? seen : rememberSeen(seen, e.eventId, e.ts);
  const pairs = { ...state.pairs, [pairId]: { timestamps: p.timestamps, cooldown: p.cooldown, seen: nextSeen, streamTime } };
  const receivers = c !== undefined ? { ...state.receivers, [e.receiverId]: c.state } : state.receivers;
  return { pairs, receivers, effect: answer(p.suppressedBy, c?.suppressedBy ?? null) };
}

/** Ids whose event time is older than `before` are forgotten; `seen` is kept ascending by ts. */
function forgetSeen(seen: PairState['seen'], before: number): PairState['seen'] {
  let i = 0;
  while (i < seen.length && seen[i]![1] < before) i++;
  return i === 0 ? seen : seen.slice(i);
}

function rememberSeen(seen: PairState['seen'], id: string, ts: number): PairState['seen'] {
  let i = seen.length;
  while (i > 0 && seen[i - 1]![1] > ts) i--;
  const next = seen.slice();
  next.splice(i, 0, [id, ts]);
  return next.length > MAX_SEEN_IDS ? next.slice(next.length - MAX_SEEN_IDS) : next;
}

/** Suppress with the later-ending cooldown (the pair's on a tie), else deliver. */
function answer(pair: Cooldown | null, conversation: Cooldown | null): BotEffect {
  if (pair === null && conversation === null) return DELIVER;
  if (conversation === null || (pair !== null && pair.until >= conversation.until)) return { kind: 'suppress', cooldownUntil: pair!.until, reason: REASONS.pairBudget };
  return { kind: 'suppress', cooldownUntil: conversation.until, reason: REASONS.conversationBudget };
}

/** A repeated eventId is recorded by neither budget: the answer is the state at its own time. */
function repeatedAnswer(state: ConversationState, pair: PairState, e: BotMessage): BotEffect {
  const receiver = state.receivers[e.receiverId];
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
  /** This event started (or hit) the cooldown by exceeding the budget, rather than arriving inside one. */
  readonly tripped: boolean;
}

function pairBudget(pair: PairState, t: number, cfg: ResolvedBotLoop): PairOutcome {
  if (inCooldown(pair.cooldown, t)) return { timestamps: pair.timestamps, cooldown: pair.cooldown, suppressedBy: pair.cooldown, tripped: false };
  const from = t - cfg.windowMs;
  const timestamps: number[] = [];
  let count = 1;
  let placed = false;
  for (const x of pair.timestamps) {
    if (x <= from) continue;
    if (!placed && x > t) { timestamps.push(t); placed = true; }
    if (x <= t) count++;
    timestamps.push(x);
  }
  if (!placed) timestamps.push(t);
  if (count <= cfg.maxEventsPerWindow) return { timestamps, cooldown: pair.cooldown, suppressedBy: null, tripped: false };
  const cooldown = trip(pair.cooldown, t, cfg.cooldownMs);
  return { timestamps: timestamps.filter((x) => x > t), cooldown, suppressedBy: cooldown, tripped: true };
}

function conversationBudget(r: ReceiverState, e: BotMessage, cfg: ResolvedBotLoop, limit: number, pairCooldownActive: boolean): { state: ReceiverState; suppressedBy: Cooldown | null } {
  const t = e.ts;
  const events = insertByTs(r.events, [t, e.senderId]);
  if (inCooldown(r.cooldown, t)) return { state: { events, cooldown: r.cooldown }, suppressedBy: r.cooldown };
  if (pairCooldownActive) return { state: { events, cooldown: r.cooldown }, suppressedBy: null };
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
function insertByTs(events: ReceiverState['events'], item: readonly [number, string]): ReceiverState['events'] {
  let i = events.length;
  while (i > 0 && events[i - 1]![0] > item[0]) i--;
  const next = [...events.slice(0, i), item, ...events.slice(i)];
  return next.length > MAX_RECEIVER_EVENTS ? next.slice(next.length - MAX_RECEIVER_EVENTS) : next;
}

/** Idle as of `streamTime`: nothing in any window, no cooldown running, no id remembered. */
export function isConversationIdle(s: ConversationState, streamTime: number, config: { windowMs: number; retentionMs: number }): boolean {
  for (const p of Object.values(s.pairs)) {
    if (p.cooldown !== null && p.cooldown.until > streamTime) return false;
    if (p.timestamps.some((x) => x > streamTime - config.windowMs)) return false;
    if (p.seen.some(([, ts]) => streamTime <= ts + config.retentionMs)) return false;
  }
  for (const r of Object.values(s.receivers)) {
    if (r.cooldown !== null && r.cooldown.until > streamTime) return false;
    if (r.events.some(([ts]) => ts > streamTime - CONVERSATION_WINDOW_MS)) return false;
  }
  return true;
}
