import { describe, expect, it } from 'vitest';
import { parseChannelEvent } from '../../processors/botLoop/events.js';
import { BotSenders, channelEventOf } from './inbound.js';

const NOW = 1_700_000_000_000;
const bots = new BotSenders(['bot-b', 'discord:bot-c']);
const ctx = { channelId: 'discord', accountId: 'main', conversationId: 'c1', senderId: 'bot-b', messageId: 'm1' };

describe('an inbound OpenClaw message as a channel event', () => {
  it('a named bot is a bot_message to the receiving account, with the platform time and message id', () => {
    const m = channelEventOf({ timestamp: NOW - 5 }, ctx, bots, NOW);
    expect(m).toEqual({ type: 'bot_message', ts: NOW - 5, eventId: 'm1', channel: 'discord', accountId: 'main', conversationId: 'c1', senderId: 'bot-b', receiverId: 'main' });
    expect(parseChannelEvent(m).ok).toBe(true);
  });

  it('any other sender is a human_message, with no receiver', () => {
    const m = channelEventOf({}, { ...ctx, senderId: 'alice' }, bots, NOW);
    expect(m).toEqual({ type: 'human_message', ts: NOW, eventId: 'm1', channel: 'discord', accountId: 'main', conversationId: 'c1', senderId: 'alice' });
    expect(parseChannelEvent(m).ok).toBe(true);
  });

  it('`channel:id` names a bot on that channel only', () => {
    expect(channelEventOf({}, { ...ctx, senderId: 'bot-c' }, bots, NOW)?.type).toBe('bot_message');
    expect(channelEventOf({}, { ...ctx, channelId: 'slack', senderId: 'bot-c' }, bots, NOW)?.type).toBe('human_message');
    expect(channelEventOf({}, { ...ctx, channelId: 'slack', senderId: 'bot-b' }, bots, NOW)?.type).toBe('bot_message');
  });

  it('falls back to the event, the session and the default account where the context names none', () => {
    const m = channelEventOf({ channel: 'webchat', senderId: 'bot-b', sessionKey: 'agent:main:x', messageId: 'm2' }, {}, bots, NOW);
    expect(m).toMatchObject({ channel: 'webchat', senderId: 'bot-b', conversationId: 'agent:main:x', accountId: 'default', receiverId: 'default', eventId: 'm2' });
    expect(channelEventOf({}, { ...ctx, conversationId: undefined, sessionKey: 'agent:main:y' }, bots, NOW)?.conversationId).toBe('agent:main:y');
  });

  it('has no eventId when OpenClaw names no message id: the processor counts each arrival', () => {
    expect(channelEventOf({}, { ...ctx, messageId: undefined }, bots, NOW)).not.toHaveProperty('eventId');
  });

  it('takes the arrival time when the platform time is not a usable epoch ms', () => {
    for (const timestamp of [-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 2, '1700000000000' as unknown as number])
      expect(channelEventOf({ timestamp }, ctx, bots, NOW)?.ts, String(timestamp)).toBe(NOW);
    expect(channelEventOf({ timestamp: 0 }, ctx, bots, NOW)?.ts).toBe(0);
  });

  it('is nothing when the sender, the channel or the conversation is unknown or empty', () => {
    expect(channelEventOf({}, { ...ctx, senderId: undefined }, bots, NOW)).toBeUndefined();
    expect(channelEventOf({}, { ...ctx, senderId: '' }, bots, NOW)).toBeUndefined();
    expect(channelEventOf({}, { ...ctx, channelId: undefined }, bots, NOW)).toBeUndefined();
    expect(channelEventOf({}, { ...ctx, conversationId: undefined }, bots, NOW)).toBeUndefined();
  });

  it('a prototype name is a sender id like any other', () => {
    const protoBots = new BotSenders([]);
    expect(protoBots.has('discord', 'constructor')).toBe(false);
    expect(protoBots.has('discord', '__proto__')).toBe(false);
    expect(channelEventOf({}, { ...ctx, senderId: '__proto__' }, protoBots, NOW)?.type).toBe('human_message');
  });
});
