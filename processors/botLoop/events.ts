// The channel events (docs/behaviour.md §1, §3.1, §4.6): `bot_message`, one inbound message
// written by another bot, and `human_message`, one written by a person; their wire declarations
// and their keys.
import { declare, f, invalid, isRecord, validator, type Parsed, type Shape } from '../kernel/contract.js';

export const BOT_MESSAGE = declare('bot_message', {
  ts: f.timestamp(),
  eventId: f.optional(f.identity('Unique per message; a redelivery repeats it.')),
  channel: f.identity('Empty: not tracked.'),
  accountId: f.identity('The receiving account.'),
  conversationId: f.identity(),
  senderId: f.identity('The bot that wrote the message.'),
  receiverId: f.identity('The bot that received it.'),
  hopLimit: f.optional(f.count('The bounce budget its sender stamped on it (Matrix m.bounce_limit).')),
});

export const HUMAN_MESSAGE = declare('human_message', {
  ts: f.timestamp(),
  eventId: f.optional(f.identity('Unique per message; a redelivery repeats it.')),
  channel: f.identity('Empty: ignored.'),
  accountId: f.identity(),
  conversationId: f.identity(),
  senderId: f.identity('The person who wrote it.'),
});

export const CHANNEL_EVENTS = [BOT_MESSAGE, HUMAN_MESSAGE] as const;
export const CHANNEL_EVENT_TYPES = CHANNEL_EVENTS.map((d) => d.type);

export type BotMessage = { readonly type: 'bot_message' } & Shape<typeof BOT_MESSAGE.fields>;
export type HumanMessage = { readonly type: 'human_message' } & Shape<typeof HUMAN_MESSAGE.fields>;
export type ChannelEvent = BotMessage | HumanMessage;

export const parseBotMessage = validator(BOT_MESSAGE);
export const parseHumanMessage = validator(HUMAN_MESSAGE);

/** Validates a channel event of either type. */
export function parseChannelEvent(input: unknown): Parsed<ChannelEvent> {
  const type = isRecord(input) && Object.hasOwn(input, 'type') ? input.type : undefined;
  if (type === 'human_message') return parseHumanMessage(input);
  if (type === 'bot_message') return parseBotMessage(input);
  return invalid(`type: must be one of ${CHANNEL_EVENT_TYPES.join(', ')}`);
}

/** The Kafka key: the pair for a bot message, the conversation for a human one (§4.6). */
export const channelMessageKeyOf = (e: ChannelEvent): string => (e.type === 'bot_message' ? pairKeyOf(e) : conversationKeyOf(e));

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
