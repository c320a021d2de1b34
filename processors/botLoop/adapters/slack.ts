// Slack Events API `event` of type `message`: bot authorship is a `bot_id`; a person's message
// has no `bot_id` and a `user`.
import { fact, humanFact, ignored, obj, str, type AdapterResult, type ReceiverContext } from './types.js';

export interface SlackContext {
  readonly accountId: string;
  /** This app's bot id (`B…`); its own messages carry it. */
  readonly botId?: string;
  /** This app's bot user id (`U…`), the receiver when no bot id is known. */
  readonly botUserId?: string;
}

const slackTsMs = (v: unknown): number | undefined => {
  const s = typeof v === 'string' ? Number(v) : typeof v === 'number' ? v : Number.NaN;
  return Number.isFinite(s) ? Math.round(s * 1000) : undefined;
};

export function fromSlack(payload: unknown, sctx: SlackContext): AdapterResult {
  const outer = obj(payload);
  const e = obj(outer?.event) ?? outer;
  if (e === undefined || e.type !== 'message' || str(e.channel) === undefined) return ignored('not_a_message');
  const botId = str(e.bot_id);
  const user = str(e.user);
  const facts = { conversationId: str(e.channel), ts: slackTsMs(e.event_ts ?? e.ts), eventId: str(e.ts) ?? str(e.event_ts) };
  if (botId === undefined) {
    if (user === undefined) return ignored('unknown_author');
    if (user === sctx.botUserId) return ignored('self');
    return humanFact('slack', sctx.accountId, { ...facts, senderId: user });
  }
  if (sctx.botId !== undefined && botId === sctx.botId) return ignored('self');
  const receiver = sctx.botId ?? sctx.botUserId ?? '';
  const ctx: ReceiverContext = { accountId: sctx.accountId, selfId: receiver };
  return fact('slack', ctx, { ...facts, senderId: botId });
}
