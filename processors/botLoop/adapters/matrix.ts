// Matrix client-server `m.room.message` events: Matrix has no bot flag, so a message is a bot's
// when its sender is another Matrix account configured on this deployment, and a person's
// otherwise. A bot's message may carry the bounce budget its sender stamped (`m.bounce_limit`).
import { fact, humanFact, ignored, obj, str, type AdapterResult, type ReceiverContext } from './types.js';

export interface MatrixContext extends ReceiverContext {
  /** The Matrix user ids of every bot account this deployment runs. */
  readonly configuredBotIds: ReadonlySet<string> | readonly string[];
}

/** The content key that carries a message's remaining bounce budget (docs/behaviour.md §4.7). */
export const MATRIX_BOUNCE_LIMIT = 'm.bounce_limit';

/** `hopLimit` is an Avro int ≥ 0: anything else in the content is ignored, not trusted. */
const MAX_HOP_LIMIT = 2 ** 31 - 1;
const bounceLimitOf = (content: unknown): number | undefined => {
  const v = obj(content)?.[MATRIX_BOUNCE_LIMIT];
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_HOP_LIMIT ? v : undefined;
};

export function fromMatrix(payload: unknown, ctx: MatrixContext): AdapterResult {
  const e = obj(payload);
  if (e === undefined || e.type !== 'm.room.message' || str(e.room_id) === undefined) return ignored('not_a_message');
  const sender = str(e.sender);
  if (sender === ctx.selfId) return ignored('self');
  const ts = typeof e.origin_server_ts === 'number' ? e.origin_server_ts : undefined;
  const facts = { conversationId: str(e.room_id), senderId: sender, ts, eventId: str(e.event_id) };
  const bots = ctx.configuredBotIds;
  const isBot = sender !== undefined && (bots instanceof Set ? bots.has(sender) : (bots as readonly string[]).includes(sender));
  if (!isBot) return humanFact('matrix', ctx.accountId, facts);
  return fact('matrix', ctx, { ...facts, hopLimit: bounceLimitOf(e.content) });
}

/**
 * The content of the bot's reply with the bounce budget loopguard gave it (a verdict's
 * `replyHopLimit`) under `m.bounce_limit`; unchanged when there is none.
 */
export function withBounceLimit<C extends object>(content: C, replyHopLimit: number | null | undefined): C & { readonly [MATRIX_BOUNCE_LIMIT]?: number } {
  if (replyHopLimit === null || replyHopLimit === undefined) return content;
  return { ...content, [MATRIX_BOUNCE_LIMIT]: replyHopLimit };
}
