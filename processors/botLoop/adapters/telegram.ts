// Telegram Bot API `Update` with a `message` (or `channel_post`): the author is a bot when
// `from.is_bot` is true, a person when it is false.
import { fact, humanFact, ignored, obj, str, type AdapterResult, type ReceiverContext } from './types.js';

export function fromTelegram(payload: unknown, ctx: ReceiverContext): AdapterResult {
  const update = obj(payload);
  const m = obj(update?.message) ?? obj(update?.channel_post) ?? (update && 'message_id' in update ? update : undefined);
  const from = obj(m?.from);
  const chat = obj(m?.chat);
  if (m === undefined || chat === undefined) return ignored('not_a_message');
  if (from === undefined) return ignored('missing_identity');
  if (str(from.id) === ctx.selfId) return ignored('self');
  const ts = typeof m.date === 'number' ? m.date * 1000 : undefined;
  const facts = { conversationId: str(chat.id), senderId: str(from.id), ts, eventId: str(m.message_id) };
  if (from.is_bot === true) return fact('telegram', ctx, facts);
  if (from.is_bot === false) return humanFact('telegram', ctx.accountId, facts);
  return ignored('unknown_author');
}
