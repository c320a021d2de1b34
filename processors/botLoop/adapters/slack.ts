// Slack Events API `event` of type `message`: bot authorship is a `bot_id`.
import { fact, ignored, obj, str, type AdapterResult, type ReceiverContext } from './types.js';

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
  if (botId === undefined) return ignored('human');
  if (sctx.botId !== undefined && botId === sctx.botId) return ignored('self');
  const receiver = sctx.botId ?? sctx.botUserId ?? '';
  const ctx: ReceiverContext = { accountId: sctx.accountId, selfId: receiver };
  return fact('slack', ctx, { conversationId: str(e.channel), senderId: botId, ts: slackTsMs(e.event_ts ?? e.ts), eventId: str(e.ts) ?? str(e.event_ts) });
}
