// One `bot_decision` for every `bot_message` (docs/behaviour.md §1); its fields are declared once, here.
import { declare, f, type Record_ } from '../kernel/contract.js';
import { EVIDENCE } from '../kernel/evidence.js';
import type { BotVerdict } from './decide.js';
import { pairKeyOf, type BotMessage } from './events.js';
import { REASONS } from './state.js';

export const BOT_DECISION = declare('bot_decision', {
  key: f.text('The pair key: channel, account, conversation and the two bots, sorted.'),
  channel: f.text(),
  accountId: f.text(),
  conversationId: f.text(),
  senderId: f.text(),
  receiverId: f.text(),
  eventId: f.optional(f.text()),
  ts: f.long('Event time of the message, epoch ms.'),
  decision: f.choice(['deliver', 'suppress'], 'deliver / suppress.'),
  cooldownUntil: f.optional(f.long('With suppress: when the cooldown ends, epoch ms.')),
  reason: f.optional(f.choice(Object.values(REASONS))),
  shadow: f.optional(f.boolean('Decided in shadow mode: obey it as allow / deliver, report what it would have done.')),
  evidence: f.optional(EVIDENCE),
  replyHopLimit: f.optional(f.count('With a hop limit configured: the hopLimit to stamp on the bot reply to this message.')),
});

export type BotDecision = { readonly type: 'bot_decision' } & Record_<typeof BOT_DECISION.fields>;

export function reactMessage(e: BotMessage, verdict: BotVerdict): readonly BotDecision[] {
  const a = verdict.answer;
  const suppress = a.decision === 'suppress';
  // One literal with every field, so decisions share a single shape (this is the hot path).
  return [
    {
      type: 'bot_decision',
      key: pairKeyOf(e),
      channel: e.channel,
      accountId: e.accountId,
      conversationId: e.conversationId,
      senderId: e.senderId,
      receiverId: e.receiverId,
      eventId: e.eventId ?? null,
      ts: e.ts,
      decision: a.decision,
      cooldownUntil: suppress ? a.cooldownUntil : null,
      reason: suppress ? a.reason : null,
      shadow: verdict.shadow ? true : null,
      evidence: suppress ? a.evidence : null,
      replyHopLimit: verdict.replyHopLimit ?? null,
    },
  ];
}
