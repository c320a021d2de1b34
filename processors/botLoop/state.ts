// Per-conversation state of the bot-loop processor: the pair budgets of every bot pair in it
// and the conversation budgets of every receiving bot. Plain, immutable, serialisable, bounded
// (docs/behaviour.md §1 "Limits"). Maps, not objects: ids come from events and may be any
// string, `__proto__` included.

export const REASONS = { pairBudget: 'pair_budget', conversationBudget: 'conversation_budget', slowLoop: 'slow_loop', hopLimit: 'hop_limit' } as const;
export type Reason = (typeof REASONS)[keyof typeof REASONS];

export interface Cooldown {
  readonly start: number;
  readonly until: number;
}

export interface PairState {
  /** Event times in the window, ascending. */
  readonly timestamps: readonly number[];
  readonly cooldown: Cooldown | null;
  /** Remembered eventIds with their event time, ascending by time. */
  readonly seen: ReadonlyArray<readonly [string, number]>;
  /** Newest event time the pair has seen. */
  readonly streamTime: number;
}

export interface ReceiverState {
  /** Bot events in the last 10 minutes addressed to this receiver: [ts, senderId], ascending. */
  readonly events: ReadonlyArray<readonly [number, string]>;
  readonly cooldown: Cooldown | null;
}

export interface ConversationState {
  /** Keyed by the two bot ids, sorted, joined by a NUL. */
  readonly pairs: ReadonlyMap<string, PairState>;
  /** Keyed by receiver id; only when the conversation budget is on. */
  readonly receivers: ReadonlyMap<string, ReceiverState>;
}

export const initialConversationState: ConversationState = { pairs: new Map(), receivers: new Map() };

export const CONVERSATION_WINDOW_MS = 10 * 60 * 1000;
/** Newest events kept per receiver: one more than the largest allowed limit. */
export const MAX_RECEIVER_EVENTS = 501;
/** Remembered eventIds per pair, so a storm of distinct ids cannot grow state without bound. */
export const MAX_SEEN_IDS = 512;
/** Pairs per conversation; past it the pair whose newest event is oldest goes. */
export const MAX_PAIRS = 1000;

export const inCooldown = (c: Cooldown | null, t: number): c is Cooldown => c !== null && c.start <= t && t < c.until;
