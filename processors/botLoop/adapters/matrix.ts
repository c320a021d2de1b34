// Matrix client-server `m.room.message` events: Matrix has no bot flag, so a message is a bot's
// when its sender is another Matrix account configured on this deployment.
import { fact, ignored, obj, str, type AdapterResult, type ReceiverContext } from './types.js';

export interface MatrixContext extends ReceiverContext {
  /** The Matrix user ids of every bot account this deployment runs. */
  readonly configuredBotIds: ReadonlySet<string> | readonly string[];
}

export function fromMatrix(payload: unknown, ctx: MatrixContext): AdapterResult {
  const e = obj(payload);
  if (e === undefined || e.type !== 'm.room.message' || str(e.room_id) === undefined) return ignored('not_a_message');
  const sender = str(e.sender);
  if (sender === ctx.selfId) return ignored('self');
  const bots = ctx.configuredBotIds;
  const isBot = sender !== undefined && (bots instanceof Set ? bots.has(sender) : (bots as readonly string[]).includes(sender));
  if (!isBot) return ignored('human');
  const ts = typeof e.origin_server_ts === 'number' ? e.origin_server_ts : undefined;
  return fact('matrix', ctx, { conversationId: str(e.room_id), senderId: sender, ts, eventId: str(e.event_id) });
}
