// The two budgets of §3.3–§3.4 for one tracked message at `t`, from the state before it: the
// state each leads to and the cooldown that suppresses the message, if any. A trip stores its
// evidence on the cooldown it starts (§4.5), so every later answer from that cooldown names it.
import { botPair, type BotMessage } from './events.js';
import type { ResolvedBotLoop } from './config.js';
import { CONVERSATION_WINDOW_MS, MAX_RECEIVER_EVENTS, inCooldown, type BotEvidence, type Cooldown, type PairState, type ReceiverState } from './state.js';

export type Drop = 'pair_event_id' | 'burst_event' | 'pair' | 'receiver' | 'slow_loop_event' | 'human_event_id';

/** The cooldown an event at `t` starts, unless a later-ending one is already set (which keeps its evidence). */
export function trip(current: Cooldown | null, t: number, cooldownMs: number, evidence: BotEvidence): Cooldown {
  return current !== null && current.until > t + cooldownMs ? current : { start: t, until: t + cooldownMs, evidence };
}

export interface PairOutcome {
  readonly timestamps: readonly number[];
  readonly cooldown: Cooldown | null;
  readonly suppressedBy: Cooldown | null;
}

export function pairBudget(pair: PairState, e: BotMessage, cfg: ResolvedBotLoop): PairOutcome {
  const t = e.ts;
  if (inCooldown(pair.cooldown, t)) return { timestamps: pair.timestamps, cooldown: pair.cooldown, suppressedBy: pair.cooldown };
  const from = t - cfg.windowMs;
  const timestamps: number[] = [];
  let count = 1;
  let since = t;
  let placed = false;
  for (const x of pair.timestamps) {
    if (x <= from) continue;
    if (!placed && x > t) {
      timestamps.push(t);
      placed = true;
    }
    if (x <= t) {
      count++;
      since = Math.min(since, x);
    }
    timestamps.push(x);
  }
  if (!placed) timestamps.push(t);
  if (count <= cfg.maxEventsPerWindow) return { timestamps, cooldown: pair.cooldown, suppressedBy: null };
  const cooldown = trip(pair.cooldown, t, cfg.cooldownMs, { since, count, senders: [...botPair(e)] });
  return { timestamps: timestamps.filter((x) => x > t), cooldown, suppressedBy: cooldown };
}

// Every unique tracked event is recorded and judged, also one inside its pair's cooldown; one
// inside this budget's own cooldown is suppressed by it without moving its end.
export function conversationBudget(r: ReceiverState, e: BotMessage, cfg: ResolvedBotLoop, limit: number, dropped: Drop[]): { state: ReceiverState; suppressedBy: Cooldown | null } {
  const t = e.ts;
  const events = insertByTs(r.events, [t, e.senderId], MAX_RECEIVER_EVENTS, 'burst_event', dropped);
  if (inCooldown(r.cooldown, t)) return { state: { events, cooldown: r.cooldown }, suppressedBy: r.cooldown };
  const from = t - CONVERSATION_WINDOW_MS;
  let count = 0;
  let since = t;
  const perSender = new Map<string, number>();
  for (const [ts, sender] of events) {
    if (ts <= from || ts > t) continue;
    count++;
    since = Math.min(since, ts);
    perSender.set(sender, (perSender.get(sender) ?? 0) + 1);
  }
  let busySenders = 0;
  for (const n of perSender.values()) if (n >= 2) busySenders++;
  if (count <= limit || busySenders < 2) return { state: { events, cooldown: r.cooldown }, suppressedBy: null };
  const cooldown = trip(r.cooldown, t, cfg.cooldownMs, { since, count, senders: [...perSender.keys()].sort() });
  return { state: { events, cooldown }, suppressedBy: cooldown };
}

/** Inserts keeping ascending ts (after equal ones), then keeps the newest `max`. */
export function insertByTs(
  events: ReadonlyArray<readonly [number, string]>,
  item: readonly [number, string],
  max: number,
  drop: Drop,
  dropped: Drop[],
): ReadonlyArray<readonly [number, string]> {
  let i = events.length;
  while (i > 0 && events[i - 1]![0] > item[0]) i--;
  const next = events.slice(0, i);
  next.push(item);
  for (let j = i; j < events.length; j++) next.push(events[j]!);
  if (next.length <= max) return next;
  dropped.push(drop);
  return next.slice(next.length - max);
}
