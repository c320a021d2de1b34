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
  const suppress = effect.kind === 'suppress';
  // One literal with every field, so decisions share a single shape (this is the hot path).
  return [{
    type: 'bot_decision',
    key: pairKeyOf(e),
    channel: e.channel,
    accountId: e.accountId,
    conversationId: e.conversationId,
    senderId: e.senderId,
    receiverId: e.receiverId,
    eventId: e.eventId ?? null,
    ts: e.ts,
    decision: suppress ? 'suppress' : 'deliver',
    cooldownUntil: suppress ? effect.cooldownUntil : null,
    reason: suppress ? effect.reason : null,
  }];
}
