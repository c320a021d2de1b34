// Google Chat app interaction events of type MESSAGE: the author is a bot when
// `sender.type == "BOT"`, a person when it is "HUMAN".
import { fact, humanFact, ignored, isoMs, obj, str, type AdapterResult, type ReceiverContext } from './types.js';

export function fromGoogleChat(payload: unknown, ctx: ReceiverContext): AdapterResult {
  const e = obj(payload);
  const message = obj(e?.message);
  const sender = obj(message?.sender);
  const space = obj(e?.space) ?? obj(message?.space);
  if (e === undefined || e.type !== 'MESSAGE' || message === undefined || sender === undefined) return ignored('not_a_message');
  if (str(sender.name) === ctx.selfId) return ignored('self');
  const facts = { conversationId: str(space?.name), senderId: str(sender.name), ts: isoMs(e.eventTime) ?? isoMs(message.createTime), eventId: str(message.name) };
  if (sender.type === 'BOT') return fact('googlechat', ctx, facts);
  if (sender.type === 'HUMAN') return humanFact('googlechat', ctx.accountId, facts);
  return ignored('unknown_author');
}
