// An inbound message as OpenClaw's `before_dispatch` hook reports it, as a loopguard channel
// event. OpenClaw says who sent a message (`senderId`) but not whether that sender is a bot, so
// the operator names the other bots (`botSenderIds`): a message from one of them is a
// `bot_message` to decide, any other sender's a `human_message` to publish.
//
// Identity (docs/behaviour.md §3.1): `channel` is OpenClaw's channel id, `accountId` the
// receiving account (OpenClaw's `default` when it names none), `receiverId` that same account
// (the bot this gateway speaks as), `conversationId` OpenClaw's conversation, or the session when
// it names none. `ts` is the platform's time when OpenClaw gives one, else the time of arrival;
// `eventId` the platform's message id, so a message delivered twice is counted once.
import type { BotMessage, HumanMessage } from '../../processors/botLoop/events.js';
import type { BeforeDispatchContext, BeforeDispatchEvent } from './host.js';

/** OpenClaw's account id where a channel has a single, unnamed account. */
export const DEFAULT_ACCOUNT = 'default';

/** `id` matches that sender on every channel, `channel:id` on that channel only. */
export class BotSenders {
  private readonly ids: ReadonlySet<string>;

  constructor(ids: readonly string[]) {
    this.ids = new Set(ids);
  }

  get size(): number {
    return this.ids.size;
  }

  has(channel: string, senderId: string): boolean {
    return this.ids.has(senderId) || this.ids.has(`${channel}:${senderId}`);
  }
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const time = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);

/**
 * The channel event of an inbound message, or undefined when OpenClaw does not say who sent it
 * or where (nothing to count it against).
 */
export function channelEventOf(event: BeforeDispatchEvent, ctx: BeforeDispatchContext, bots: BotSenders, now: number): BotMessage | HumanMessage | undefined {
  const channel = text(ctx.channelId) ?? text(event.channel);
  const senderId = text(ctx.senderId) ?? text(event.senderId);
  const conversationId = text(ctx.conversationId) ?? text(ctx.sessionKey) ?? text(event.sessionKey);
  if (channel === undefined || senderId === undefined || conversationId === undefined) return undefined;
  const accountId = text(ctx.accountId) ?? DEFAULT_ACCOUNT;
  const eventId = text(ctx.messageId) ?? text(event.messageId);
  const common = { ts: time(event.timestamp) ?? now, ...(eventId === undefined ? {} : { eventId }), channel, accountId, conversationId, senderId };
  return bots.has(channel, senderId) ? { type: 'bot_message', ...common, receiverId: accountId } : { type: 'human_message', ...common };
}
