// The channel-dispatcher client: pass each inbound platform payload; deliver or drop it as
// told. Human and own messages are delivered without asking. While a pair is known to be in
// cooldown the answer is immediate (the message is still published, so loopguard counts it).
import { randomUUID } from 'node:crypto';
import { channelEventCodec } from '../schemas/codecs.js';
import { conversationKeyOf, pairKeyOf, type BotMessage } from '../processors/botLoop/events.js';
import type { Reason } from '../processors/botLoop/state.js';
import { fromDiscord, fromFeishu, fromGoogleChat, fromMatrix, fromSlack, fromTelegram, type AdapterResult } from '../processors/botLoop/adapters/index.js';
import type { MatrixContext, ReceiverContext, SlackContext } from '../processors/botLoop/adapters/index.js';
import { unreachable } from '../topology/errors.js';
import { Connection, type ClientOptions } from './connection.js';

export interface InboundVerdict {
  readonly deliver: boolean;
  readonly reason: 'not_a_bot_message' | Reason | null;
  readonly cooldownUntil: number | null;
  readonly answeredBy: 'adapter' | 'local-cooldown' | 'loopguard' | 'fail-open' | 'fail-closed';
}

export type Inbound =
  | { channel: 'discord' | 'googlechat' | 'feishu' | 'telegram'; payload: unknown; context: ReceiverContext }
  | { channel: 'slack'; payload: unknown; context: SlackContext }
  | { channel: 'matrix'; payload: unknown; context: MatrixContext };

function adapt(i: Inbound): AdapterResult {
  switch (i.channel) {
    case 'discord':
      return fromDiscord(i.payload, i.context);
    case 'slack':
      return fromSlack(i.payload, i.context);
    case 'matrix':
      return fromMatrix(i.payload, i.context);
    case 'googlechat':
      return fromGoogleChat(i.payload, i.context);
    case 'feishu':
      return fromFeishu(i.payload, i.context);
    case 'telegram':
      return fromTelegram(i.payload, i.context);
    default: {
      const none: never = i;
      return unreachable('inbound channel', none);
    }
  }
}

export class LoopguardDispatcher {
  /** Pair key → end of its known cooldown (event time). */
  private readonly cooldowns = new Map<string, { until: number; reason: InboundVerdict['reason'] }>();

  private constructor(
    private readonly conn: Connection,
    private readonly failure: 'open' | 'closed',
  ) {
    conn.setCorrelation((d) => (d.type === 'bot_decision' && d.eventId ? `${d.key}/${d.eventId}` : undefined));
    conn.onDecision((d) => {
      if (d.type !== 'bot_decision' || d.decision !== 'suppress') return;
      const known = this.cooldowns.get(d.key);
      if (d.cooldownUntil !== null && (known === undefined || known.until < d.cooldownUntil)) this.cooldowns.set(d.key, { until: d.cooldownUntil, reason: d.reason });
    });
  }

  static async connect(opts: ClientOptions): Promise<LoopguardDispatcher> {
    return new LoopguardDispatcher(await Connection.open(opts, [{ topic: 'channelEvents', codec: channelEventCodec }]), opts.failure);
  }

  /** A platform's native inbound payload. */
  inbound(i: Inbound): Promise<InboundVerdict> {
    const r = adapt(i);
    if (r.kind === 'ignored') return Promise.resolve({ deliver: true, reason: 'not_a_bot_message', cooldownUntil: null, answeredBy: 'adapter' });
    return this.botMessage(r.event);
  }

  /** A bot message already in loopguard's form. */
  async botMessage(m: BotMessage): Promise<InboundVerdict> {
    const event = { ...m, eventId: m.eventId ?? randomUUID() };
    const topic = this.conn.topics.channelEvents;
    const key = pairKeyOf(event);
    const partition = this.conn.partitionOf(topic, conversationKeyOf(event));
    const value = this.conn.catalog.encode(topic, channelEventCodec, event);
    const known = this.cooldowns.get(key);
    if (known !== undefined && event.ts < known.until) {
      await this.conn.publish(topic, partition, key, value);
      return { deliver: false, reason: known.reason, cooldownUntil: known.until, answeredBy: 'local-cooldown' };
    }
    const d = await this.conn.request(topic, partition, key, value, `${key}/${event.eventId}`);
    if (d === undefined || d.type !== 'bot_decision')
      return { deliver: this.failure === 'open', reason: null, cooldownUntil: null, answeredBy: this.failure === 'open' ? 'fail-open' : 'fail-closed' };
    return { deliver: d.decision === 'deliver', reason: d.reason, cooldownUntil: d.cooldownUntil, answeredBy: 'loopguard' };
  }

  close(): Promise<void> {
    return this.conn.close();
  }
}
