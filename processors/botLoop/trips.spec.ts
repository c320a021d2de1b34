// Which messages count as slow-loop trips in the metrics: the one that starts a cooldown, not
// the ones suppressed inside it, nor a repeated id, nor a trip that keeps a later-ending cooldown.
import { describe, expect, it } from 'vitest';
import { botLoopProcess, initialConversationState, type BotPolicyBlock, type ChannelEvent, type ConversationState } from './index.js';

const T0 = 1_700_000_000_000;
const room = { channel: 'matrix', accountId: '@a', conversationId: '!r' };
const msg = (i: number, ts = T0 + i * 1000): ChannelEvent => ({ type: 'bot_message', ts, ...room, senderId: '@b', receiverId: '@a', eventId: `m${i}` });

function tripsOf(policy: BotPolicyBlock, events: ChannelEvent[]): string[] {
  const p = botLoopProcess({ defaults: { maxEventsPerWindow: 1000 }, channels: {}, policy });
  let state: ConversationState = initialConversationState;
  const out: string[] = [];
  for (const e of events) {
    const v = p.decide(state, e);
    for (const t of p.trips?.(state, e, v) ?? []) out.push(`${String(e.eventId)}:${t.what}:${t.shadow}`);
    state = p.evolve(state, e, v);
  }
  return out;
}

describe('slow-loop trips', () => {
  const policy: BotPolicyBlock = { slowLoop: { maxBotMessages: 3, horizonSeconds: 600 } };
  it('count the message that starts the cooldown once, not the ones inside it or a redelivery', () => {
    expect(tripsOf(policy, [msg(0), msg(1), msg(2), msg(3), msg(4), msg(3), msg(5)])).toEqual(['m3:slow_loop:false']);
  });
  it('count nothing below the limit, and a shadow trip as shadow', () => {
    expect(tripsOf(policy, [msg(0), msg(1), msg(2)])).toEqual([]);
    expect(tripsOf({ ...policy, mode: 'shadow' }, [msg(0), msg(1), msg(2), msg(3)])).toEqual(['m3:slow_loop:true']);
  });
  it('count a new trip after a person ends the cooldown', () => {
    const human: ChannelEvent = { type: 'human_message', ts: T0 + 4500, ...room, senderId: '@alice', eventId: 'h1' };
    expect(tripsOf(policy, [msg(0), msg(1), msg(2), msg(3), human, msg(5), msg(6), msg(7), msg(8)])).toEqual(['m3:slow_loop:false', 'm8:slow_loop:false']);
  });
});
