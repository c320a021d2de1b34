// Folding a channel event's verdict into its conversation's state: the pair, receiver and
// slow-loop states worked out by `decide` take their place, within the per-conversation bounds.
import type { BotVerdict } from './decide.js';
import { CONVERSATION_WINDOW_MS, MAX_PAIRS, type ConversationState, type PairState, type ReceiverState, type SlowLoopState } from './state.js';

export function evolveConversation(state: ConversationState, verdict: BotVerdict): ConversationState {
  if (verdict.pair === undefined && verdict.slow === undefined && verdict.reset === undefined) return state;
  let pairs = verdict.reset?.pairs ?? state.pairs;
  let receivers = verdict.reset?.receivers ?? state.receivers;
  if (verdict.pair !== undefined) pairs = bounded(pairs, verdict.pair.id, verdict.pair.state, (p) => p.streamTime);
  if (verdict.receiver !== undefined) receivers = bounded(receivers, verdict.receiver.id, verdict.receiver.state, newestEvent);
  return { pairs, receivers, slow: verdict.slow ?? state.slow };
}

const newestEvent = (r: ReceiverState): number => r.events.at(-1)?.[0] ?? Number.NEGATIVE_INFINITY;

/** Sets `id`, then, past MAX_PAIRS entries, drops the one whose newest event is oldest (first on a tie). */
function bounded<V>(map: ReadonlyMap<string, V>, id: string, value: V, newest: (v: V) => number): ReadonlyMap<string, V> {
  const next = new Map(map);
  next.set(id, value);
  if (next.size <= MAX_PAIRS) return next;
  let oldestId: string | undefined;
  let oldest = Number.POSITIVE_INFINITY;
  for (const [k, v] of next) {
    const t = newest(v);
    if (k !== id && t < oldest) {
      oldest = t;
      oldestId = k;
    }
  }
  if (oldestId !== undefined) next.delete(oldestId);
  return next;
}

export interface IdleHorizon {
  readonly windowMs: number;
  readonly retentionMs: number;
  /** The longest slow-loop horizon any channel configures (0: none). */
  readonly slowHorizonMs: number;
}

/** Idle as of `streamTime`: nothing in any window, no cooldown running, no id remembered, no human ts that still matters. */
export function isConversationIdle(s: ConversationState, streamTime: number, config: IdleHorizon): boolean {
  if (s.slow !== null && !slowIdle(s.slow, streamTime, config)) return false;
  for (const p of s.pairs.values()) if (!pairIdle(p, streamTime, config)) return false;
  for (const r of s.receivers.values()) {
    if (r.cooldown !== null && r.cooldown.until > streamTime) return false;
    if (r.events.some(([ts]) => ts > streamTime - CONVERSATION_WINDOW_MS)) return false;
  }
  return true;
}

function pairIdle(p: PairState, streamTime: number, config: { windowMs: number; retentionMs: number }): boolean {
  if (p.cooldown !== null && p.cooldown.until > streamTime) return false;
  if (p.timestamps.some((x) => x > streamTime - config.windowMs)) return false;
  return !p.seen.some(([, ts]) => streamTime <= ts + config.retentionMs);
}

// The last human ts bounds the windows of messages before lastHuman + horizon; its ids go with it.
// With human reset alone (no horizon) they stay as long as a pair remembers its ids.
function slowIdle(s: SlowLoopState, streamTime: number, config: IdleHorizon): boolean {
  if (s.cooldown !== null && s.cooldown.until > streamTime) return false;
  const horizon = Math.max(config.slowHorizonMs, config.retentionMs);
  if (s.counted.some(([ts]) => ts > streamTime - horizon)) return false;
  return s.lastHuman === null || streamTime >= s.lastHuman + horizon;
}
