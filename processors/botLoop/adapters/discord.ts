// Discord gateway MESSAGE_CREATE `d` payload: bot authorship is `author.bot`.
import { fact, ignored, isoMs, obj, str, type AdapterResult, type ReceiverContext } from './types.js';

export function fromDiscord(payload: unknown, ctx: ReceiverContext): AdapterResult {
  const m = obj(payload);
  const author = obj(m?.author);
  if (m === undefined || author === undefined || str(m.channel_id) === undefined) return ignored('not_a_message');
  if (str(author.id) === ctx.selfId) return ignored('self');
  if (author.bot !== true) return ignored('human');
  return fact('discord', ctx, { conversationId: str(m.channel_id), senderId: str(author.id), ts: isoMs(m.timestamp), eventId: str(m.id) });
}
