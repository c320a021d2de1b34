// Google Chat app interaction events of type MESSAGE: bot authorship is `sender.type == "BOT"`.
import { fact, ignored, isoMs, obj, str, type AdapterResult, type ReceiverContext } from './types.js';

export function fromGoogleChat(payload: unknown, ctx: ReceiverContext): AdapterResult {
  const e = obj(payload);
  const message = obj(e?.message);
  const sender = obj(message?.sender);
  const space = obj(e?.space) ?? obj(message?.space);
  if (e === undefined || e.type !== 'MESSAGE' || message === undefined || sender === undefined) return ignored('not_a_message');
  if (str(sender.name) === ctx.selfId) return ignored('self');
  if (sender.type !== 'BOT') return ignored('human');
  return fact('googlechat', ctx, { conversationId: str(space?.name), senderId: str(sender.name), ts: isoMs(e.eventTime) ?? isoMs(message.createTime), eventId: str(message.name) });
}
