// The channel-dispatcher client: pass each inbound platform payload; deliver or drop it as
// told. A person's message is published as a `human_message` and delivered without a decision
// (it gets none); other messages the adapter ignores (own, unknown authors) are delivered
// without asking. While a pair is known to be in cooldown the answer is immediate (the message
// is still published, so loopguard counts it). When loopguard gives the reply a hop limit, the
// caller stamps it on the bot's reply (`replyHopLimit`; on Matrix, `withBounceLimit`).
import { randomUUID } from 'node:crypto';
import { channelEventCodec } from '../schemas/codecs.js';
import { avroBody } from '../schemas/registry.js';
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

  /** Connects as `LoopguardRunner.connect` does: an unreachable loopguard leaves it answering by policy, reconnecting. */
  static async connect(opts: ClientOptions): Promise<LoopguardDispatcher> {
    const dispatcher = LoopguardDispatcher.start(opts);
    await dispatcher.ready;
    return dispatcher;
  }

  /** A dispatcher that connects in the background, as `LoopguardRunner.start`. */
  static start(opts: ClientOptions): LoopguardDispatcher {
    return new LoopguardDispatcher(Connection.start(opts, [{ topic: 'channelEvents', codec: channelEventCodec }]), opts.failure);
  }

  /** Settles as `connect` does. */
  get ready(): Promise<void> {
    return this.conn.ready;
  }

  /** Whether loopguard can be reached now. */
  get reachable(): boolean {
    return this.conn.reachable;
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

  /** A bot message already in loopguard's form. Resolves within `timeoutMs` whatever is down. */
  async botMessage(m: BotMessage): Promise<InboundVerdict> {
    const event = { ...m, eventId: m.eventId ?? randomUUID() };
    const { topic, key, partitionKey, body } = this.record(event);
    const known = this.cooldowns.answer(event);
    if (known !== undefined) {
      this.conn.publish(topic, key, partitionKey, body);
      return known;
    }
    const a = await this.conn.request(topic, key, partitionKey, body, `${key}/${event.eventId}`);
    return a.decision === undefined || a.decision.type !== 'bot_decision' ? failureVerdict(this.failure) : inboundVerdictOf(a.decision);
  }

  /**
   * A person's message already in loopguard's form: published (it may end a slow loop or a
   * cooldown) and delivered at once; a person is never held up by loopguard.
   */
  async humanMessage(m: HumanMessage): Promise<InboundVerdict> {
    const event = { ...m, eventId: m.eventId ?? randomUUID() };
    this.cooldowns.noticeHuman(event);
    const { topic, key, partitionKey, body } = this.record(event);
    this.conn.publish(topic, key, partitionKey, body);
    return adapterVerdict('human_message');
  }

  /** Sends what is queued (up to 5 s), then disconnects. */
  close(): Promise<void> {
    return this.conn.close();
  }

  /** Keyed by pair or conversation; both go to the conversation's partition (§4.6). */
  private record(event: ChannelEvent) {
    return { topic: this.conn.topics.channelEvents, key: channelMessageKeyOf(event), partitionKey: conversationKeyOf(event), body: avroBody(channelEventCodec, event) };
  }
}
