// The cooldowns a dispatcher has been told of, so it can answer at once while a pair is known to
// be suppressed. Only what is certain is answered locally; anything else asks loopguard:
// - a suppress reported for a message at `ts` with `cooldownUntil` U means a cooldown ran over
//   [ts, U) for that pair (pair, conversation and slow-loop cooldowns all cover the pair, and
//   only a person can end one early, docs/behaviour.md §4.6);
// - shadow decisions are never answered locally (they deliver, §4.1);
// - a person's message forgets the conversation's cooldowns (human reset, the slow-loop
//   release), and a later-arriving decision for a message not newer than it is not trusted.
// Times are event times (the platform's), never the local clock.
import { conversationKeyOf, pairKeyOf, type BotMessage, type HumanMessage } from '../processors/botLoop/events.js';
import type { BotDecision } from '../processors/botLoop/react.js';
import type { InboundVerdict } from './verdicts.js';

interface Known {
  readonly from: number;
  readonly until: number;
  readonly verdict: InboundVerdict;
}

interface Conversation {
  /** The newest person's message seen, event time. */
  human: number;
  readonly pairs: Map<string, Known>;
}

/** Conversations remembered at most; the first remembered is forgotten first (it then asks loopguard). */
const MAX_CONVERSATIONS = 10_000;

export class KnownCooldowns {
  private readonly conversations = new Map<string, Conversation>();

  /** A decision read from loopguard. */
  noticeDecision(d: BotDecision): void {
    if (d.decision !== 'suppress' || d.shadow === true || d.cooldownUntil === null || d.cooldownUntil <= d.ts) return;
    const c = this.conversation(conversationKeyOf(d));
    if (d.ts <= c.human) return;
    const known = c.pairs.get(d.key);
    if (known !== undefined && known.until >= d.cooldownUntil) return;
    const verdict: InboundVerdict = {
      deliver: false,
      reason: d.reason,
      cooldownUntil: d.cooldownUntil,
      evidence: d.evidence ?? null,
      wouldHave: null,
      replyHopLimit: null,
      answeredBy: 'local-cooldown',
    };
    c.pairs.set(d.key, { from: d.ts, until: d.cooldownUntil, verdict });
  }

  /** A person's message this dispatcher published. */
  noticeHuman(m: HumanMessage): void {
    const c = this.conversation(conversationKeyOf(m));
    c.human = Math.max(c.human, m.ts);
    c.pairs.clear();
  }

  /** The local answer for a bot message, when its pair is certainly in cooldown at its `ts`. */
  answer(m: BotMessage): InboundVerdict | undefined {
    const c = this.conversations.get(conversationKeyOf(m));
    const key = pairKeyOf(m);
    const known = c?.pairs.get(key);
    if (known === undefined) return undefined;
    if (m.ts >= known.until) {
      c!.pairs.delete(key);
      return undefined;
    }
    return m.ts >= known.from ? known.verdict : undefined;
  }

  private conversation(key: string): Conversation {
    let c = this.conversations.get(key);
    if (c !== undefined) return c;
    if (this.conversations.size >= MAX_CONVERSATIONS) this.conversations.delete(this.conversations.keys().next().value!);
    c = { human: Number.NEGATIVE_INFINITY, pairs: new Map() };
    this.conversations.set(key, c);
    return c;
  }
}
