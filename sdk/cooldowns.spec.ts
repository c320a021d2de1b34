import { describe, expect, it } from 'vitest';
import { pairKeyOf, type BotMessage, type HumanMessage } from '../processors/botLoop/events.js';
import type { BotDecision } from '../processors/botLoop/react.js';
import { KnownCooldowns } from './cooldowns.js';

const room = { channel: 'matrix', accountId: '@deploy:acme.org', conversationId: '!ops:acme.org' };
const msg = (ts: number, senderId = '@triage:acme.org'): BotMessage => ({ type: 'bot_message', ts, ...room, senderId, receiverId: '@deploy:acme.org' });
const human = (ts: number, conversationId = room.conversationId): HumanMessage => ({ type: 'human_message', ts, ...room, conversationId, senderId: '@alice:acme.org' });
const suppressed = (m: BotMessage, cooldownUntil: number, over: Partial<BotDecision> = {}): BotDecision => ({
  type: 'bot_decision',
  key: pairKeyOf(m),
  ...room,
  senderId: m.senderId,
  receiverId: m.receiverId,
  eventId: null,
  ts: m.ts,
  decision: 'suppress',
  cooldownUntil,
  reason: 'pair_budget',
  shadow: null,
  evidence: { since: m.ts - 50_000, count: 21, senders: ['@deploy:acme.org', '@triage:acme.org'] },
  replyHopLimit: null,
  ...over,
});

function given(...decisions: BotDecision[]): KnownCooldowns {
  const k = new KnownCooldowns();
  for (const d of decisions) k.noticeDecision(d);
  return k;
}

describe('the dispatcher’s known cooldowns', () => {
  it('answers at once from the suppressed message’s ts up to (not including) cooldownUntil', () => {
    const k = given(suppressed(msg(1_000), 61_000));
    expect(k.answer(msg(1_000))).toMatchObject({ deliver: false, reason: 'pair_budget', cooldownUntil: 61_000, answeredBy: 'local-cooldown' });
    expect(k.answer(msg(60_999))).toMatchObject({ deliver: false, evidence: { count: 21 } });
    expect(k.answer(msg(61_000))).toBeUndefined();
  });
  it('covers the reverse direction of the pair, not another pair', () => {
    const k = given(suppressed(msg(1_000), 61_000));
    expect(k.answer({ ...msg(2_000), senderId: '@deploy:acme.org', receiverId: '@triage:acme.org' })).toMatchObject({ deliver: false });
    expect(k.answer(msg(2_000, '@other:acme.org'))).toBeUndefined();
  });
  it('asks loopguard for a message older than the suppressed one (the cooldown may start after it)', () => {
    expect(given(suppressed(msg(1_000), 61_000)).answer(msg(999))).toBeUndefined();
  });
  it('never answers from a shadow decision', () => {
    expect(given(suppressed(msg(1_000), 61_000, { shadow: true })).answer(msg(2_000))).toBeUndefined();
  });
  it('never answers from a hop_limit suppress (it starts no cooldown)', () => {
    expect(given(suppressed(msg(1_000), 1_000, { reason: 'hop_limit' })).answer(msg(1_000))).toBeUndefined();
  });
  it('ignores delivers, and keeps the later-ending of two cooldowns', () => {
    const k = given(suppressed(msg(1_000), 61_000), suppressed(msg(2_000), 40_000), { ...suppressed(msg(3_000), 90_000), decision: 'deliver', cooldownUntil: null });
    expect(k.answer(msg(50_000))).toMatchObject({ cooldownUntil: 61_000 });
    expect(k.answer(msg(70_000))).toBeUndefined();
  });
  it('forgets a conversation’s cooldowns when a person writes in it, and only that conversation’s', () => {
    const other = { ...msg(1_000), conversationId: '!dev:acme.org' };
    const k = given(suppressed(msg(1_000), 61_000), { ...suppressed(other, 61_000), conversationId: '!dev:acme.org' });
    k.noticeHuman(human(5_000));
    expect(k.answer(msg(6_000))).toBeUndefined();
    expect(k.answer({ ...other, ts: 6_000 })).toMatchObject({ deliver: false });
  });
  it('does not trust a decision read after a person’s message for a message not newer than it', () => {
    const k = new KnownCooldowns();
    k.noticeHuman(human(5_000));
    k.noticeDecision(suppressed(msg(4_000), 64_000));
    k.noticeDecision(suppressed(msg(5_000), 65_000));
    expect(k.answer(msg(6_000))).toBeUndefined();
    k.noticeDecision(suppressed(msg(5_001), 65_001, { reason: 'slow_loop' }));
    expect(k.answer(msg(6_000))).toMatchObject({ deliver: false, reason: 'slow_loop' });
  });
});
