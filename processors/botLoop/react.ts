// One `bot_decision` for every `bot_message` (SPEC §1).
import { pairKeyOf, type BotMessage } from './events.js';
import type { ConversationState, Reason } from './state.js';

export interface BotDecision {
  readonly type: 'bot_decision';
  readonly key: string;
  readonly channel: string;
  readonly accountId: string;
  readonly conversationId: string;
  readonly senderId: string;
  readonly receiverId: string;
  readonly eventId: string | null;
  readonly ts: number;
  readonly decision: 'deliver' | 'suppress';
  readonly cooldownUntil: number | null;
  readonly reason: Reason | null;
}

export function reactConversation(state: ConversationState, e: BotMessage): readonly BotDecision[] {
  const effect = state.effect;
  const base = {
    type: 'bot_decision', key: pairKeyOf(e), channel: e.channel, accountId: e.accountId, conversationId: e.conversationId,
    senderId: e.senderId, receiverId: e.receiverId, eventId: e.eventId ?? null, ts: e.ts,
  } as const;
  if (effect.kind === 'suppress') return [{ ...base, decision: 'suppress', cooldownUntil: effect.cooldownUntil, reason: effect.reason }];
  return [{ ...base, decision: 'deliver', cooldownUntil: null, reason: null }];
}
