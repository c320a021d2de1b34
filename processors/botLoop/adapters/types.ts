// Channel adapters turn a platform's native inbound payload into a channel fact — a
// `bot_message` for a message another bot wrote, a `human_message` for one a person wrote — or
// say why it is neither (docs/behaviour.md §3.1, §4.6). A bot's own messages never become facts.
import { isRecord } from '../../kernel/contract.js';
import type { BotMessage, HumanMessage } from '../events.js';

/** `unknown_author`: the platform marks the author as neither a bot nor a person (a webhook, a system message). */
export type IgnoreReason = 'not_a_message' | 'self' | 'missing_identity' | 'unknown_author';

export type AdapterResult =
  | { readonly kind: 'bot_message'; readonly event: BotMessage }
  | { readonly kind: 'human_message'; readonly event: HumanMessage }
  | { readonly kind: 'ignored'; readonly reason: IgnoreReason };

/** Who is receiving: the dispatcher's account (scope) and its own bot identity. */
export interface ReceiverContext {
  readonly accountId: string;
  readonly selfId: string;
}

export const ignored = (reason: IgnoreReason): AdapterResult => ({ kind: 'ignored', reason });

export type Obj = Record<string, unknown>;
export const obj = (v: unknown): Obj | undefined => (isRecord(v) ? v : undefined);
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

interface Facts {
  readonly conversationId?: string | undefined;
  readonly senderId?: string | undefined;
  readonly ts?: number | undefined;
  readonly eventId?: string | undefined;
}

const complete = <F extends Facts>(f: F): f is F & { conversationId: string; senderId: string; ts: number } =>
  !!f.conversationId && !!f.senderId && f.ts !== undefined && Number.isFinite(f.ts);

/** A message another bot wrote, received by `ctx.selfId`. */
export function fact(channel: string, ctx: ReceiverContext, f: Facts & { readonly hopLimit?: number | undefined }): AdapterResult {
  if (!complete(f) || !ctx.accountId || !ctx.selfId) return ignored('missing_identity');
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
    ...(f.hopLimit !== undefined ? { hopLimit: f.hopLimit } : {}),
  };
  return { kind: 'bot_message', event };
}

/** A message a person wrote in the conversation; it needs no receiving bot. */
export function humanFact(channel: string, accountId: string, f: Facts): AdapterResult {
  if (!complete(f) || !accountId) return ignored('missing_identity');
  const event: HumanMessage = { type: 'human_message', channel, accountId, conversationId: f.conversationId, senderId: f.senderId, ts: f.ts, eventId: f.eventId };
  return { kind: 'human_message', event };
}

/** ISO-8601 text to epoch ms, or undefined. */
export const isoMs = (v: unknown): number | undefined => {
  if (typeof v !== 'string') return undefined;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : ms;
};
