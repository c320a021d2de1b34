// The channel-dispatcher client: pass each inbound platform payload; deliver or drop it as
// told. A person's message is published as a `human_message` and delivered without a decision
// (it gets none); other messages the adapter ignores (own, unknown authors) are delivered
// without asking. While a pair is known to be in cooldown the answer is immediate (the message
// is still published, so loopguard counts it). When loopguard gives the reply a hop limit, the
// caller stamps it on the bot's reply (`replyHopLimit`; on Matrix, `withBounceLimit`).
import { randomUUID } from 'node:crypto';
import { channelEventCodec } from '../schemas/codecs.js';
import { channelMessageKeyOf, conversationKeyOf, type BotMessage, type ChannelEvent, type HumanMessage } from '../processors/botLoop/events.js';
import { fromDiscord, fromFeishu, fromGoogleChat, fromMatrix, fromSlack, fromTelegram, type AdapterResult } from '../processors/botLoop/adapters/index.js';
import type { MatrixContext, ReceiverContext, SlackContext } from '../processors/botLoop/adapters/index.js';
import { unreachable } from '../topology/errors.js';
import { Connection, type ClientOptions } from './connection.js';
import { KnownCooldowns } from './cooldowns.js';
import { adapterVerdict, failureVerdict, inboundVerdictOf, type InboundVerdict } from './verdicts.js';

export type { InboundVerdict, InboundWouldHave } from './verdicts.js';

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
  private readonly cooldowns = new KnownCooldowns();

  private constructor(
    private readonly conn: Connection,
    private readonly failure: 'open' | 'closed',
  ) {
    conn.setCorrelation((d) => (d.type === 'bot_decision' && d.eventId ? `${d.key}/${d.eventId}` : undefined));
    conn.onDecision((d) => {
      if (d.type === 'bot_decision') this.cooldowns.noticeDecision(d);
    });
  }

  static async connect(opts: ClientOptions): Promise<LoopguardDispatcher> {
    return new LoopguardDispatcher(await Connection.open(opts, [{ topic: 'channelEvents', codec: channelEventCodec }]), opts.failure);
  }

  /** A platform's native inbound payload. */
  inbound(i: Inbound): Promise<InboundVerdict> {
    const r = adapt(i);
    switch (r.kind) {
      case 'bot_message':
        return this.botMessage(r.event);
      case 'human_message':
        return this.humanMessage(r.event);
      case 'ignored':
        return Promise.resolve(adapterVerdict('not_a_bot_message'));
      default: {
        const none: never = r;
        return unreachable('adapter result', none);
      }
    }
  }

  /** A bot message already in loopguard's form. */
  async botMessage(m: BotMessage): Promise<InboundVerdict> {
    const event = { ...m, eventId: m.eventId ?? randomUUID() };
    const { topic, partition, key, value } = this.record(event);
    const known = this.cooldowns.answer(event);
    if (known !== undefined) {
      await this.conn.publish(topic, partition, key, value);
      return known;
    }
    const d = await this.conn.request(topic, partition, key, value, `${key}/${event.eventId}`);
    return d === undefined || d.type !== 'bot_decision' ? failureVerdict(this.failure) : inboundVerdictOf(d);
  }

  /**
   * A person's message already in loopguard's form: published (it may end a slow loop or a
   * cooldown) and delivered; a person is never held up by loopguard, so a failure to publish
   * is logged, not thrown.
   */
  async humanMessage(m: HumanMessage): Promise<InboundVerdict> {
    const event = { ...m, eventId: m.eventId ?? randomUUID() };
    this.cooldowns.noticeHuman(event);
    const { topic, partition, key, value } = this.record(event);
    await this.conn.publish(topic, partition, key, value).catch((e: unknown) => this.conn.log.warn({ err: (e as Error).message }, 'human_message not published'));
    return adapterVerdict('human_message');
  }

  close(): Promise<void> {
    return this.conn.close();
  }

  /** Keyed by pair or conversation; both go to the conversation's partition (§4.6). */
  private record(event: ChannelEvent) {
    const topic = this.conn.topics.channelEvents;
    const key = channelMessageKeyOf(event);
    const partition = this.conn.partitionOf(topic, conversationKeyOf(event));
    return { topic, partition, key, value: this.conn.catalog.encode(topic, channelEventCodec, event) };
  }
}
