// Per-conversation state of the bot-loop processor: the pair budgets of every bot pair in it
// and the conversation budgets of every receiving bot. Plain, immutable, serialisable, bounded
// (docs/behaviour.md §1 "Limits"). Maps, not objects: ids come from events and may be any
// string, `__proto__` included.

export const REASONS = { pairBudget: 'pair_budget', conversationBudget: 'conversation_budget', slowLoop: 'slow_loop', hopLimit: 'hop_limit' } as const;
export type Reason = (typeof REASONS)[keyof typeof REASONS];

/** What a suppress names as its grounds (§4.5): oldest ts, how many events, senders sorted. */
export interface BotEvidence {
  readonly since: number;
  readonly count: number;
  readonly senders: readonly string[];
}

export interface Cooldown {
  readonly start: number;
  readonly until: number;
  /** The window at the trip that started it; null when restored from a changelog value older than §4.5. */
  readonly evidence: BotEvidence | null;
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

/** The slow-loop budget and what the conversation's people did (§4.6); null until either matters. */
export interface SlowLoopState {
  /** Greatest ts of the conversation's human_messages; null: none seen. */
  readonly lastHuman: number | null;
  /** Counted bot messages [ts, senderId], ascending; at most maxBotMessages + 1. */
  readonly counted: ReadonlyArray<readonly [number, string]>;
  readonly cooldown: Cooldown | null;
  /** Remembered human_message eventIds with their ts, in arrival order; at most MAX_SEEN_IDS. */
  readonly humanIds: ReadonlyArray<readonly [string, number]>;
}

export interface ConversationState {
  /** Keyed by the two bot ids, sorted, joined by a NUL. */
  readonly pairs: ReadonlyMap<string, PairState>;
  /** Keyed by receiver id; only when the conversation budget is on. */
  readonly receivers: ReadonlyMap<string, ReceiverState>;
  /** Only when the channel's bot policy has a slow loop or human reset. */
  readonly slow: SlowLoopState | null;
}

export const initialConversationState: ConversationState = { pairs: new Map(), receivers: new Map(), slow: null };
export const EMPTY_SLOW_LOOP: SlowLoopState = { lastHuman: null, counted: [], cooldown: null, humanIds: [] };

export const CONVERSATION_WINDOW_MS = 10 * 60 * 1000;
/** Newest events kept per receiver: one more than the largest allowed limit. */
export const MAX_RECEIVER_EVENTS = 501;
/** Remembered eventIds per pair, so a storm of distinct ids cannot grow state without bound. */
export const MAX_SEEN_IDS = 512;
/** Pairs per conversation; past it the pair whose newest event is oldest goes. */
export const MAX_PAIRS = 1000;

export const inCooldown = (c: Cooldown | null, t: number): c is Cooldown => c !== null && c.start <= t && t < c.until;
