// `bot_message` (docs/behaviour.md §1, §3.1): one inbound message written by another bot, its
// wire declaration and its keys.
import { declare, f, validator, type Shape } from '../kernel/contract.js';

export const BOT_MESSAGE = declare('bot_message', {
  ts: f.timestamp(),
  eventId: f.optional(f.identity('Unique per message; a redelivery repeats it.')),
  channel: f.identity('Empty: not tracked.'),
  accountId: f.identity('The receiving account.'),
  conversationId: f.identity(),
  senderId: f.identity('The bot that wrote the message.'),
  receiverId: f.identity('The bot that received it.'),
});

export const CHANNEL_EVENTS = [BOT_MESSAGE] as const;

export type BotMessage = { readonly type: 'bot_message' } & Shape<typeof BOT_MESSAGE.fields>;

export const parseBotMessage = validator(BOT_MESSAGE);

type PairIdentity = Pick<BotMessage, 'channel' | 'accountId' | 'conversationId' | 'senderId' | 'receiverId'>;

/** The two bots of a message, sorted, so A→B and B→A are one pair. */
export function botPair(e: Pick<BotMessage, 'senderId' | 'receiverId'>): readonly [string, string] {
  return e.senderId < e.receiverId ? [e.senderId, e.receiverId] : [e.receiverId, e.senderId];
}

/** A pair of bots in one conversation, direction-free: the Kafka key and the decision key. */
export function pairKeyOf(e: PairIdentity): string {
  const [a, b] = botPair(e);
  return JSON.stringify([e.channel, e.accountId, e.conversationId, a, b]);
}

/** The conversation a message belongs to: the unit of state and of partitioning. */
export function conversationKeyOf(e: Pick<BotMessage, 'channel' | 'accountId' | 'conversationId'>): string {
  return JSON.stringify([e.channel, e.accountId, e.conversationId]);
}

/** Not tracked (§3.3): an identity field is empty, or a bot talks to itself. */
export function isTrackable(e: BotMessage): boolean {
  return e.channel !== '' && e.accountId !== '' && e.conversationId !== '' && e.senderId !== '' && e.receiverId !== '' && e.senderId !== e.receiverId;
}
