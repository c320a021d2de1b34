// Feishu / Lark event v2 `im.message.receive_v1`: the author is a bot when
// `sender.sender_type == "bot"`, a person when it is "user".
import { fact, humanFact, ignored, obj, str, type AdapterResult, type ReceiverContext } from './types.js';

const ms = (v: unknown): number | undefined => {
  const n = typeof v === 'string' ? Number(v) : typeof v === 'number' ? v : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};

export function fromFeishu(payload: unknown, ctx: ReceiverContext): AdapterResult {
  const root = obj(payload);
  const header = obj(root?.header);
  const event = obj(root?.event);
  const sender = obj(event?.sender);
  const message = obj(event?.message);
  if (event === undefined || sender === undefined || message === undefined) return ignored('not_a_message');
  const ids = obj(sender.sender_id);
  const senderId = str(ids?.open_id) ?? str(ids?.app_id) ?? str(ids?.union_id) ?? str(ids?.user_id);
  if (senderId !== undefined && (senderId === ctx.selfId || str(ids?.app_id) === ctx.selfId)) return ignored('self');
  const facts = { conversationId: str(message.chat_id), senderId, ts: ms(message.create_time) ?? ms(header?.create_time), eventId: str(message.message_id) };
  if (sender.sender_type === 'bot') return fact('feishu', ctx, facts);
  if (sender.sender_type === 'user') return humanFact('feishu', ctx.accountId, facts);
  return ignored('unknown_author');
}
