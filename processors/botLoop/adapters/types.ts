// Channel adapters turn a platform's native inbound payload into a `bot_message` fact, or say
// why it is not one. Only messages written by another bot become facts (docs/behaviour.md §3.1).
import { isRecord } from '../../kernel/contract.js';
import type { BotMessage } from '../events.js';

export type IgnoreReason = 'not_a_message' | 'human' | 'self' | 'missing_identity';

export type AdapterResult = { readonly kind: 'bot_message'; readonly event: BotMessage } | { readonly kind: 'ignored'; readonly reason: IgnoreReason };

/** Who is receiving: the dispatcher's account (scope) and its own bot identity. */
export interface ReceiverContext {
  readonly accountId: string;
  readonly selfId: string;
}

export const ignored = (reason: IgnoreReason): AdapterResult => ({ kind: 'ignored', reason });

export type Obj = Record<string, unknown>;
export const obj = (v: unknown): Obj | undefined => (isRecord(v) ? v : undefined);
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

export function fact(
  channel: string,
  ctx: ReceiverContext,
  f: { conversationId?: string | undefined; senderId?: string | undefined; ts?: number | undefined; eventId?: string | undefined },
): AdapterResult {
  if (!f.conversationId || !f.senderId || !ctx.accountId || !ctx.selfId || f.ts === undefined || !Number.isFinite(f.ts)) return ignored('missing_identity');
  if (f.senderId === ctx.selfId) return ignored('self');
  const event: BotMessage = {
    type: 'bot_message',
    channel,
    accountId: ctx.accountId,
    conversationId: f.conversationId,
    senderId: f.senderId,
    receiverId: ctx.selfId,
    ts: f.ts,
    eventId: f.eventId,
  };
  return { kind: 'bot_message', event };
}

/** ISO-8601 text to epoch ms, or undefined. */
export const isoMs = (v: unknown): number | undefined => {
  if (typeof v !== 'string') return undefined;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : ms;
};
