// Telegram Bot API `Update` with a `message` (or `channel_post`): bot authorship is `from.is_bot`.
import { fact, ignored, obj, str, type AdapterResult, type ReceiverContext } from './types.js';

export function fromTelegram(payload: unknown, ctx: ReceiverContext): AdapterResult {
  const update = obj(payload);
  const m = obj(update?.message) ?? obj(update?.channel_post) ?? (update && 'message_id' in update ? update : undefined);
  const from = obj(m?.from);
  const chat = obj(m?.chat);
  if (m === undefined || chat === undefined) return ignored('not_a_message');
  if (from === undefined) return ignored('missing_identity');
  if (str(from.id) === ctx.selfId) return ignored('self');
  if (from.is_bot !== true) return ignored('human');
  const ts = typeof m.date === 'number' ? m.date * 1000 : undefined;
  return fact('telegram', ctx, { conversationId: str(chat.id), senderId: str(from.id), ts, eventId: str(m.message_id) });
}
