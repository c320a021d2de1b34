// The slow-loop budget and human messages (docs/behaviour.md §4.6). A conversation counts its
// tracked bot messages since the last person spoke, over a long horizon; a human message ends
// a running slow-loop cooldown and, with human reset, the pair and conversation cooldowns too.
import { insertByTs, trip, type Drop } from './budgets.js';
import type { BotMessage, HumanMessage } from './events.js';
import type { ResolvedBotPolicy } from './policy.js';
import { MAX_SEEN_IDS, inCooldown, type Cooldown, type PairState, type ReceiverState, type SlowLoopState } from './state.js';

type SlowLoop = NonNullable<ResolvedBotPolicy['slowLoop']>;

export interface SlowOutcome {
  readonly state: SlowLoopState;
  readonly suppressedBy: Cooldown | null;
}

/**
 * Judges a unique tracked message at `t`: inside the cooldown it is suppressed and not counted;
 * else it counts, and trips when the counted messages in (max(h, t − horizon), t] exceed the limit.
 */
export function slowLoopBudget(s: SlowLoopState, e: BotMessage, cfg: SlowLoop, dropped: Drop[]): SlowOutcome {
  const t = e.ts;
  if (inCooldown(s.cooldown, t)) return { state: s, suppressedBy: s.cooldown };
  // At or before the last human: outside every window it could ever fall in (h only grows).
  if (s.lastHuman !== null && t <= s.lastHuman) return { state: s, suppressedBy: null };
  const from = Math.max(s.lastHuman ?? Number.NEGATIVE_INFINITY, t - cfg.horizonMs);
  // Nothing is dropped by age here: an older message that arrives later is judged against its
  // own window, which may reach back past a newer message's horizon; the bound below is by count.
  const all = insertByTs(s.counted, [t, e.senderId], Number.POSITIVE_INFINITY, 'slow_loop_event', dropped);
  let count = 0;
  let since = t;
  const senders = new Set<string>();
  for (const [ts, sender] of all) {
    if (ts <= from || ts > t) continue;
    count++;
    since = Math.min(since, ts);
    senders.add(sender);
  }
  const keep = cfg.maxBotMessages + 1;
  const counted = all.length > keep ? all.slice(all.length - keep) : all;
  if (counted !== all) dropped.push('slow_loop_event');
  if (count <= cfg.maxBotMessages) return { state: { ...s, counted }, suppressedBy: null };
  const cooldown = trip(s.cooldown, t, cfg.horizonMs, { since, count, senders: [...senders].sort() });
  return { state: { ...s, counted, cooldown }, suppressedBy: cooldown };
}

/** A person wrote at `h`: the slow-loop cooldown active then ends at `h`, and counting starts afresh. */
export function humanArrives(s: SlowLoopState, e: HumanMessage, dropped: Drop[]): SlowLoopState {
  const h = e.ts;
  return {
    lastHuman: s.lastHuman === null ? h : Math.max(s.lastHuman, h),
    counted: s.counted.filter(([ts]) => ts > h),
    cooldown: endAt(s.cooldown, h),
    humanIds: e.eventId === undefined ? s.humanIds : rememberHuman(s.humanIds, e.eventId, h, dropped),
  };
}

export const isRepeatedHuman = (s: SlowLoopState | null, e: HumanMessage): boolean => e.eventId !== undefined && s !== null && s.humanIds.some(([id]) => id === e.eventId);

function rememberHuman(ids: SlowLoopState['humanIds'], id: string, ts: number, dropped: Drop[]): SlowLoopState['humanIds'] {
  const next = [...ids, [id, ts] as const];
  if (next.length <= MAX_SEEN_IDS) return next;
  dropped.push('human_event_id');
  return next.slice(next.length - MAX_SEEN_IDS);
}

/** A cooldown active at `h` ends at `h` (its evidence stays); any other is left as it is. */
function endAt(c: Cooldown | null, h: number): Cooldown | null {
  return inCooldown(c, h) ? { ...c, until: h } : c;
}

/** Human reset: every pair's cooldown active at `h` ends then, and its timestamps ≤ h are dropped. */
export function resetPairs(pairs: ReadonlyMap<string, PairState>, h: number): ReadonlyMap<string, PairState> {
  const next = new Map<string, PairState>();
  for (const [id, p] of pairs) next.set(id, { ...p, timestamps: p.timestamps.filter((x) => x > h), cooldown: endAt(p.cooldown, h) });
  return next;
}

/** Human reset for the conversation budgets: the same, over each receiver's burst window. */
export function resetReceivers(receivers: ReadonlyMap<string, ReceiverState>, h: number): ReadonlyMap<string, ReceiverState> {
  const next = new Map<string, ReceiverState>();
  for (const [id, r] of receivers) next.set(id, { events: r.events.filter(([ts]) => ts > h), cooldown: endAt(r.cooldown, h) });
  return next;
}
