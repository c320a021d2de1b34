import { describe, expect, it } from 'vitest';
import { fromDiscord, fromFeishu, fromGoogleChat, fromMatrix, fromSlack, fromTelegram, withBounceLimit } from './index.js';

// Payloads follow each platform's documented inbound shapes, trimmed to realistic fields.
const discordMessage = (author: object) => ({
  id: '1189123456789012345',
  channel_id: '1100000000000000001',
  guild_id: '1000000000000000000',
  type: 0,
  content: 'ping from the other bot',
  timestamp: '2026-11-29T10:00:00.123000+00:00',
  edited_timestamp: null,
  tts: false,
  mention_everyone: false,
  mentions: [],
  attachments: [],
  embeds: [],
  author,
});

describe('Discord', () => {
  const ctx = { accountId: 'main', selfId: '900' };
  it('turns another bot’s MESSAGE_CREATE into a bot_message', () => {
    expect(fromDiscord(discordMessage({ id: '901', username: 'helper', discriminator: '0', bot: true }), ctx)).toEqual({
      kind: 'bot_message',
      event: {
        type: 'bot_message',
        channel: 'discord',
        accountId: 'main',
        conversationId: '1100000000000000001',
        senderId: '901',
        receiverId: '900',
        ts: Date.parse('2026-11-29T10:00:00.123Z'),
        eventId: '1189123456789012345',
      },
    });
  });
  it('turns a person’s message (author.bot false or absent) into a human_message', () => {
    const human = {
      kind: 'human_message',
      event: {
        type: 'human_message',
        channel: 'discord',
        accountId: 'main',
        conversationId: '1100000000000000001',
        senderId: '5',
        ts: Date.parse('2026-11-29T10:00:00.123Z'),
        eventId: '1189123456789012345',
      },
    };
    expect(fromDiscord(discordMessage({ id: '5', username: 'alice', bot: false }), ctx)).toEqual(human);
    expect(fromDiscord(discordMessage({ id: '5', username: 'alice' }), ctx)).toEqual(human);
  });
  it('ignores itself, webhooks, system messages and non-messages', () => {
    expect(fromDiscord(discordMessage({ id: '900', username: 'me', bot: true }), ctx)).toEqual({ kind: 'ignored', reason: 'self' });
    expect(fromDiscord(discordMessage({ id: '900', username: 'me' }), ctx)).toEqual({ kind: 'ignored', reason: 'self' });
    expect(fromDiscord({ ...discordMessage({ id: '77', username: 'Alerts' }), webhook_id: '77' }, ctx)).toEqual({ kind: 'ignored', reason: 'unknown_author' });
    expect(fromDiscord(discordMessage({ id: '643945264868098049', username: 'Discord', system: true }), ctx)).toEqual({ kind: 'ignored', reason: 'unknown_author' });
    expect(fromDiscord({ op: 11 }, ctx)).toEqual({ kind: 'ignored', reason: 'not_a_message' });
  });
  it('does not take a truthy non-boolean bot flag for a bot', () => {
    expect(fromDiscord(discordMessage({ id: '5', username: 'alice', bot: 'true' }), ctx)).toMatchObject({ kind: 'human_message' });
  });
});

describe('Slack', () => {
  const envelope = (event: object) => ({
    token: 'x',
    team_id: 'T061EG9R6',
    api_app_id: 'A0PNCHHK2',
    type: 'event_callback',
    event_id: 'Ev0PV52K25',
    event_time: 1700000000,
    event,
  });
  const botEvent = {
    type: 'message',
    subtype: 'bot_message',
    text: 'hello',
    ts: '1700000000.000200',
    event_ts: '1700000000.000200',
    channel: 'C2147483705',
    bot_id: 'B0OTHER',
    username: 'other-bot',
    channel_type: 'channel',
  };
  it('turns another bot’s message into a bot_message with ts from event_ts', () => {
    const r = fromSlack(envelope(botEvent), { accountId: 'T061EG9R6', botId: 'B0SELF', botUserId: 'U0SELF' });
    expect(r).toMatchObject({
      kind: 'bot_message',
      event: { channel: 'slack', conversationId: 'C2147483705', senderId: 'B0OTHER', receiverId: 'B0SELF', ts: 1_700_000_000_000, eventId: '1700000000.000200' },
    });
  });
  it('uses the bot user id as receiver when the own bot id is unknown', () => {
    expect(fromSlack(envelope(botEvent), { accountId: 'T1', botUserId: 'U0SELF' })).toMatchObject({ event: { receiverId: 'U0SELF' } });
  });
  const human = { type: 'message', channel: 'C1', user: 'U123', text: 'hi', ts: '1700000000.000100' };
  it('turns a message with a user and no bot_id into a human_message', () => {
    expect(fromSlack(envelope(human), { accountId: 'T1', botId: 'B0SELF' })).toEqual({
      kind: 'human_message',
      event: { type: 'human_message', channel: 'slack', accountId: 'T1', conversationId: 'C1', senderId: 'U123', ts: 1_700_000_000_000, eventId: '1700000000.000100' },
    });
  });
  it('needs no own bot identity for a person’s message', () => {
    expect(fromSlack(envelope(human), { accountId: 'T1' })).toMatchObject({ kind: 'human_message' });
  });
  it('takes a message with both a user and a bot_id for a bot’s', () => {
    expect(fromSlack(envelope({ ...botEvent, user: 'U0OTHERBOT' }), { accountId: 'T1', botId: 'B0SELF' })).toMatchObject({ kind: 'bot_message', event: { senderId: 'B0OTHER' } });
  });
  it('ignores itself (by bot id or bot user id), authorless messages and non-messages', () => {
    expect(fromSlack(envelope({ ...botEvent, bot_id: 'B0SELF' }), { accountId: 'T1', botId: 'B0SELF' })).toEqual({ kind: 'ignored', reason: 'self' });
    expect(fromSlack(envelope({ ...human, user: 'U0SELF' }), { accountId: 'T1', botUserId: 'U0SELF' })).toEqual({ kind: 'ignored', reason: 'self' });
    const edited = { type: 'message', subtype: 'message_changed', channel: 'C1', hidden: true, message: { user: 'U123', text: 'hi!' }, ts: '1700000000.000300' };
    expect(fromSlack(envelope(edited), { accountId: 'T1', botId: 'B0SELF' })).toEqual({ kind: 'ignored', reason: 'unknown_author' });
    expect(fromSlack(envelope({ type: 'reaction_added' }), { accountId: 'T1', botId: 'B0SELF' })).toMatchObject({ reason: 'not_a_message' });
    expect(fromSlack(envelope({ ...human, ts: 'soon' }), { accountId: 'T1' })).toEqual({ kind: 'ignored', reason: 'missing_identity' });
  });
  it('ignores its own message as self even when it lacks a timestamp', () => {
    const own = { ...botEvent, bot_id: 'B0SELF', ts: undefined, event_ts: undefined };
    expect(fromSlack(envelope(own), { accountId: 'T1', botId: 'B0SELF' })).toEqual({ kind: 'ignored', reason: 'self' });
  });
  it('reads a numeric ts as seconds, like its string form', () => {
    const numeric = { ...botEvent, ts: undefined, event_ts: 1700000000.25 };
    expect(fromSlack(envelope(numeric), { accountId: 'T1', botId: 'B0SELF' })).toMatchObject({ kind: 'bot_message', event: { ts: 1_700_000_000_250 } });
  });
});

describe('Matrix', () => {
  const event = (sender: string) => ({
    type: 'm.room.message',
    event_id: '$143273582443PhrSn:example.org',
    room_id: '!roomid:example.org',
    sender,
    origin_server_ts: 1432735824653,
    content: { msgtype: 'm.text', body: 'hi' },
    unsigned: { age: 1234 },
  });
  const ctx = { accountId: 'bot-a', selfId: '@bot-a:example.org', configuredBotIds: ['@bot-a:example.org', '@bot-b:example.org'] };
  it('treats another configured account as a bot', () => {
    expect(fromMatrix(event('@bot-b:example.org'), ctx)).toMatchObject({
      kind: 'bot_message',
      event: {
        channel: 'matrix',
        conversationId: '!roomid:example.org',
        senderId: '@bot-b:example.org',
        receiverId: '@bot-a:example.org',
        ts: 1432735824653,
        eventId: '$143273582443PhrSn:example.org',
      },
    });
  });
  it('turns any other account into a human_message, and ignores itself', () => {
    expect(fromMatrix(event('@alice:example.org'), ctx)).toEqual({
      kind: 'human_message',
      event: {
        type: 'human_message',
        channel: 'matrix',
        accountId: 'bot-a',
        conversationId: '!roomid:example.org',
        senderId: '@alice:example.org',
        ts: 1432735824653,
        eventId: '$143273582443PhrSn:example.org',
      },
    });
    expect(fromMatrix(event('@bot-a:example.org'), ctx)).toEqual({ kind: 'ignored', reason: 'self' });
    expect(fromMatrix(event('@bot-b:example.org'), { ...ctx, configuredBotIds: new Set(['@bot-b:example.org']) })).toMatchObject({ kind: 'bot_message' });
  });
  it('ignores other event types and messages without a sender', () => {
    expect(fromMatrix({ ...event('@alice:example.org'), type: 'm.room.member' }, ctx)).toEqual({ kind: 'ignored', reason: 'not_a_message' });
    expect(fromMatrix({ ...event('@alice:example.org'), sender: undefined }, ctx)).toEqual({ kind: 'ignored', reason: 'missing_identity' });
  });
  const bounce = (limit: unknown) => ({ ...event('@bot-b:example.org'), content: { msgtype: 'm.text', body: 'hi', 'm.bounce_limit': limit } });
  it('reads m.bounce_limit into hopLimit, 0 and the Avro int maximum included', () => {
    expect(fromMatrix(bounce(3), ctx)).toMatchObject({ kind: 'bot_message', event: { hopLimit: 3 } });
    expect(fromMatrix(bounce(0), ctx)).toMatchObject({ event: { hopLimit: 0 } });
    expect(fromMatrix(bounce(2 ** 31 - 1), ctx)).toMatchObject({ event: { hopLimit: 2 ** 31 - 1 } });
  });
  it.each([
    ['-1', -1],
    ['1.5', 1.5],
    ['"3"', '3'],
    ['null', null],
    ['true', true],
    ['2^31', 2 ** 31],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['[3]', [3]],
  ])('ignores an m.bounce_limit of %s (hostile input is not trusted)', (_, limit) => {
    const r = fromMatrix(bounce(limit), ctx);
    expect(r.kind).toBe('bot_message');
    expect(r.kind === 'bot_message' && 'hopLimit' in r.event).toBe(false);
  });
  it('carries no hopLimit when the content has none or is not an object', () => {
    expect(fromMatrix(event('@bot-b:example.org'), ctx)).toSatisfy((r: ReturnType<typeof fromMatrix>) => r.kind === 'bot_message' && !('hopLimit' in r.event));
    expect(fromMatrix({ ...event('@bot-b:example.org'), content: 'hi' }, ctx)).toSatisfy(
      (r: ReturnType<typeof fromMatrix>) => r.kind === 'bot_message' && !('hopLimit' in r.event),
    );
  });
  it('stamps a reply’s m.bounce_limit from the verdict, and leaves the content alone without one', () => {
    const content = { msgtype: 'm.text', body: 'on it' };
    expect(withBounceLimit(content, 2)).toEqual({ msgtype: 'm.text', body: 'on it', 'm.bounce_limit': 2 });
    expect(withBounceLimit(content, 0)).toEqual({ ...content, 'm.bounce_limit': 0 });
    expect(withBounceLimit(content, null)).toBe(content);
    expect(content).not.toHaveProperty('m.bounce_limit');
  });
});

describe('Google Chat', () => {
  const event = (sender: object) => ({
    type: 'MESSAGE',
    eventTime: '2026-11-29T10:00:00.500Z',
    space: { name: 'spaces/AAAA', type: 'ROOM', displayName: 'Ops' },
    message: { name: 'spaces/AAAA/messages/CCCC.CCCC', sender, createTime: '2026-11-29T10:00:00.400Z', text: 'hi', thread: { name: 'spaces/AAAA/threads/T' } },
    user: sender,
  });
  const ctx = { accountId: 'default', selfId: 'users/app' };
  it('turns a BOT sender into a bot_message with ts from eventTime', () => {
    expect(fromGoogleChat(event({ name: 'users/111', displayName: 'Other', type: 'BOT' }), ctx)).toMatchObject({
      kind: 'bot_message',
      event: {
        channel: 'googlechat',
        conversationId: 'spaces/AAAA',
        senderId: 'users/111',
        receiverId: 'users/app',
        ts: Date.parse('2026-11-29T10:00:00.500Z'),
        eventId: 'spaces/AAAA/messages/CCCC.CCCC',
      },
    });
  });
  it('turns a HUMAN sender into a human_message', () => {
    expect(fromGoogleChat(event({ name: 'users/222', type: 'HUMAN' }), ctx)).toEqual({
      kind: 'human_message',
      event: {
        type: 'human_message',
        channel: 'googlechat',
        accountId: 'default',
        conversationId: 'spaces/AAAA',
        senderId: 'users/222',
        ts: Date.parse('2026-11-29T10:00:00.500Z'),
        eventId: 'spaces/AAAA/messages/CCCC.CCCC',
      },
    });
  });
  it('ignores the app itself, and senders of another or no type', () => {
    expect(fromGoogleChat(event({ name: 'users/app', type: 'BOT' }), ctx)).toEqual({ kind: 'ignored', reason: 'self' });
    expect(fromGoogleChat(event({ name: 'users/333', type: 'TYPE_UNSPECIFIED' }), ctx)).toEqual({ kind: 'ignored', reason: 'unknown_author' });
    expect(fromGoogleChat(event({ name: 'users/333', type: 'human' }), ctx)).toEqual({ kind: 'ignored', reason: 'unknown_author' });
    expect(fromGoogleChat(event({ name: 'users/333' }), ctx)).toEqual({ kind: 'ignored', reason: 'unknown_author' });
  });
});

describe('Feishu', () => {
  const event = (senderType: string, openId: string) => ({
    schema: '2.0',
    header: { event_id: '5e3702a84e847582be8db7fb73283c02', event_type: 'im.message.receive_v1', create_time: '1700000000999', token: 't', app_id: 'cli_self', tenant_key: 'tk' },
    event: {
      sender: { sender_id: { union_id: 'on_x', user_id: 'u', open_id: openId }, sender_type: senderType, tenant_key: 'tk' },
      message: {
        message_id: 'om_5ce6d572455d361153b7cb51da133945',
        chat_id: 'oc_5ce6d572455d361153b7cb5xxfsdfsdfdsf',
        chat_type: 'group',
        message_type: 'text',
        content: '{"text":"hi"}',
        create_time: '1700000000123',
      },
    },
  });
  const ctx = { accountId: 'default', selfId: 'ou_self' };
  it('turns a bot sender into a bot_message', () => {
    expect(fromFeishu(event('bot', 'ou_other'), ctx)).toMatchObject({
      kind: 'bot_message',
      event: {
        channel: 'feishu',
        conversationId: 'oc_5ce6d572455d361153b7cb5xxfsdfsdfdsf',
        senderId: 'ou_other',
        receiverId: 'ou_self',
        ts: 1_700_000_000_123,
        eventId: 'om_5ce6d572455d361153b7cb51da133945',
      },
    });
  });
  it('turns a user sender into a human_message', () => {
    expect(fromFeishu(event('user', 'ou_alice'), ctx)).toEqual({
      kind: 'human_message',
      event: {
        type: 'human_message',
        channel: 'feishu',
        accountId: 'default',
        conversationId: 'oc_5ce6d572455d361153b7cb5xxfsdfsdfdsf',
        senderId: 'ou_alice',
        ts: 1_700_000_000_123,
        eventId: 'om_5ce6d572455d361153b7cb51da133945',
      },
    });
  });
  it('ignores itself and senders of another type', () => {
    expect(fromFeishu(event('bot', 'ou_self'), ctx)).toEqual({ kind: 'ignored', reason: 'self' });
    expect(fromFeishu(event('app', 'ou_other'), ctx)).toEqual({ kind: 'ignored', reason: 'unknown_author' });
    expect(fromFeishu(event('User', 'ou_alice'), ctx)).toEqual({ kind: 'ignored', reason: 'unknown_author' });
  });
  it('ignores itself named by its app id, and itself as a user', () => {
    const byApp = event('bot', 'ou_bot');
    byApp.event.sender.sender_id = { ...byApp.event.sender.sender_id, app_id: 'cli_self' } as typeof byApp.event.sender.sender_id;
    expect(fromFeishu(byApp, { accountId: 'default', selfId: 'cli_self' })).toEqual({ kind: 'ignored', reason: 'self' });
    expect(fromFeishu(event('user', 'ou_self'), ctx)).toEqual({ kind: 'ignored', reason: 'self' });
  });
  it('reads a numeric create_time as epoch ms, like its string form', () => {
    const numeric = event('bot', 'ou_other');
    (numeric.event.message as { create_time: unknown }).create_time = 1_700_000_000_456;
    expect(fromFeishu(numeric, ctx)).toMatchObject({ kind: 'bot_message', event: { ts: 1_700_000_000_456 } });
  });
});

describe('Telegram', () => {
  const update = (from: object) => ({
    update_id: 10000,
    message: { message_id: 1365, date: 1700000000, chat: { id: -1001234567890, type: 'supergroup', title: 'ops' }, from, text: 'hi' },
  });
  const ctx = { accountId: 'default', selfId: '7000001' };
  it('turns another bot into a bot_message with ts = date × 1000 and eventId = message id', () => {
    expect(fromTelegram(update({ id: 7000002, is_bot: true, first_name: 'Other', username: 'other_bot' }), ctx)).toEqual({
      kind: 'bot_message',
      event: {
        type: 'bot_message',
        channel: 'telegram',
        accountId: 'default',
        conversationId: '-1001234567890',
        senderId: '7000002',
        receiverId: '7000001',
        ts: 1_700_000_000_000,
        eventId: '1365',
      },
    });
  });
  it('turns a person (from.is_bot false) into a human_message', () => {
    expect(fromTelegram(update({ id: 42, is_bot: false, first_name: 'Alice' }), ctx)).toEqual({
      kind: 'human_message',
      event: { type: 'human_message', channel: 'telegram', accountId: 'default', conversationId: '-1001234567890', senderId: '42', ts: 1_700_000_000_000, eventId: '1365' },
    });
  });
  it('ignores itself, senders without is_bot, and messages without a sender', () => {
    expect(fromTelegram(update({ id: 7000001, is_bot: true, first_name: 'Me' }), ctx)).toEqual({ kind: 'ignored', reason: 'self' });
    expect(fromTelegram(update({ id: 42, first_name: 'Alice' }), ctx)).toEqual({ kind: 'ignored', reason: 'unknown_author' });
    expect(fromTelegram(update({ id: 42, is_bot: 0, first_name: 'Alice' }), ctx)).toEqual({ kind: 'ignored', reason: 'unknown_author' });
    expect(fromTelegram({ update_id: 1, message: { message_id: 1, date: 1, chat: { id: 1 } } }, ctx)).toEqual({ kind: 'ignored', reason: 'missing_identity' });
  });
});
