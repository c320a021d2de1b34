// Discord gateway MESSAGE_CREATE `d` payload: bot authorship is `author.bot`; a person's
// message has it false or absent. Webhook and system messages have no person behind them.
import { fact, humanFact, ignored, isoMs, obj, str, type AdapterResult, type ReceiverContext } from './types.js';

export function fromDiscord(payload: unknown, ctx: ReceiverContext): AdapterResult {
  const m = obj(payload);
  const author = obj(m?.author);
  if (m === undefined || author === undefined || str(m.channel_id) === undefined) return ignored('not_a_message');
  if (str(author.id) === ctx.selfId) return ignored('self');
  const facts = { conversationId: str(m.channel_id), senderId: str(author.id), ts: isoMs(m.timestamp), eventId: str(m.id) };
  if (author.bot === true) return fact('discord', ctx, facts);
  if (author.system === true || m.webhook_id !== undefined) return ignored('unknown_author');
  return humanFact('discord', ctx.accountId, facts);
}
