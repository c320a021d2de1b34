// `bot_message` (SPEC §1, §3.1): one inbound message written by another bot.
import { z } from 'zod';

const opt = <T extends z.ZodType>(t: T) => t.nullish().transform((v) => v ?? undefined);

export const botMessageSchema = z.object({
  type: z.literal('bot_message'),
  ts: z.number({ error: 'ts must be a number (epoch ms)' }).finite(),
  eventId: opt(z.string()),
  channel: z.string(),
  accountId: z.string(),
  conversationId: z.string(),
  senderId: z.string(),
  receiverId: z.string(),
});

export type BotMessage = z.output<typeof botMessageSchema>;

/** A pair of bots in one conversation, direction-free: A→B and B→A share it. */
export function pairKeyOf(e: Pick<BotMessage, 'channel' | 'accountId' | 'conversationId' | 'senderId' | 'receiverId'>): string {
  const [a, b] = e.senderId < e.receiverId ? [e.senderId, e.receiverId] : [e.receiverId, e.senderId];
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
