// What both SDK clients share: a connection to loopguard (Kafka and the schema registry) that
// never becomes the outage itself.
// - A request (a tool call, a bot message) is answered within `timeoutMs`, whatever is down:
//   by loopguard's decision, else by the failure policy. While the connection is known to be
//   down it is answered at once.
// - A publication (an outcome, a compaction, a run's end, a person's message) returns at once;
//   it is sent in the background, in order with the requests, and waits in a bounded queue
//   while loopguard is unreachable (outbox.ts).
// - Kafka or the registry unreachable at start, lost later, back again: the client reconnects
//   by itself with capped, jittered backoff, each time on a fresh link (link.ts), and follows
//   again the decision partitions it followed. While nothing listens it waits no longer than
//   it takes a broker to listen again. Only a definitive error (refused credentials, a
//   registry that refuses the schema: an error its adapter does not mark retriable) on the
//   first connect rejects `ready`.
// - The outage is logged once, then at a bounded rate, and its end once (outageLog.ts); the
//   Kafka client's own retry logs stay at debug.
import { setTimeout as delay } from 'node:timers/promises';
import { decisionCodec, type Decision, type ValueCodec } from '../schemas/codecs.js';
import { COMPATIBILITY, SchemaCatalog } from '../schemas/registry.js';
import { configFrom, type LoopguardSettings } from '../topology/config.js';
import { ERROR_CODES, isRetriable, LoopguardError } from '../topology/errors.js';
import { createLogger, type Logger } from '../topology/logger.js';
import { partitionFor } from '../topology/partitioner.js';
import { kafkaClientInUse } from '../topology/runtime/connect.js';
import type { InRecord, OutRecord } from '../topology/runtime/port.js';
import { DEFAULT_TOPICS, type TopicNames } from '../topology/topology.js';
import { openLink, type Link } from './link.js';
import { OutageLog, type OutageCounts } from './outageLog.js';
import { Outbox, type Pending, type RequestTicket } from './outbox.js';
import { NothingListens, someBrokerListens } from './reach.js';
import type { NoAnswer } from './verdicts.js';

export interface ClientOptions {
  /** Bootstrap brokers, e.g. ['127.0.0.1:9092']. */
  readonly brokers: readonly string[];
  /** Confluent-compatible schema registry, e.g. http://127.0.0.1:8081. */
  readonly schemaRegistryUrl: string;
  /** For an https:// registry: a CA certificate (PEM file) to trust instead of the system's. */
  readonly schemaRegistryCaFile?: string;
  /** Topic names when they differ from loopguard's defaults. */
  readonly topics?: Partial<TopicNames>;
  /** Kafka client id (default loopguard-sdk). */
  readonly clientId?: string;
  /**
   * TLS to Kafka: true (the system's CAs), or PEM files: `caFile` (the CA that signed the
   * brokers' certificates), `certFile` + `keyFile` (+ `keyPassword`) for mutual TLS.
   */
  readonly ssl?: boolean | { caFile?: string; certFile?: string; keyFile?: string; keyPassword?: string };
  /** SASL credentials (the principal whose ACLs apply). */
  readonly sasl?: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string };
  /** Kafka client library (default kafkajs); librdkafka where it is not installed: kafkajs. */
  readonly kafkaClient?: 'kafkajs' | 'librdkafka';
  /**
   * The longest a call waits for loopguard, all included (connecting, following the decision
   * topic, sending, the decision); then the failure policy answers. Default 2000 ms.
   */
  readonly timeoutMs?: number;
  /**
   * What to answer when loopguard does not decide in time or cannot be reached: 'open' lets
   * the call or message through, 'closed' stops it. There is no default: choose.
   */
  readonly failure: 'open' | 'closed';
  readonly logger?: Logger;
}

export type { Decision } from '../schemas/codecs.js';

export type { NoAnswer };
export type Answer = { readonly decision: Decision; readonly failure?: undefined } | { readonly decision?: undefined; readonly failure: NoAnswer };

const UNREACHABLE: Answer = { failure: 'unreachable' };
const TIMEOUT: Answer = { failure: 'timeout' };

/** Events waiting to be sent at most; beyond, the oldest publication is dropped. */
const MAX_QUEUED = 10_000;
const MAX_BATCH = 500;
/** A TCP connect to a broker, before anything else of a connect. */
const PREFLIGHT_MS = 2_000;
/** One connect: registering the schemas, the link's session, producer and follower. */
const ATTEMPT_MS = 20_000;
/** The first connect is awaited this long by `ready`; then the client counts as down, and goes on trying. */
const FIRST_GRACE_MS = 10_000;
/** A request sent but not acknowledged in time: do the brokers still answer a metadata request? */
const PROBE_MS = 5_000;
/** How long `close` waits for queued events to be sent, and for a link to close. */
const FLUSH_MS = 5_000;
const BACKOFF_MIN_MS = 250;
const BACKOFF_MAX_MS = 5_000;
/** While nothing listened at the last connect: how often the backoff looks whether a broker listens again. */
const LISTEN_POLL_MS = 500;

/** Capped exponential backoff, jittered to 50–150 %. */
export const backoffMs = (attempt: number, random: () => number = Math.random): number => Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** attempt) * (0.5 + random());

/**
 * Waits `ms`, or less: with `listens`, asked every `pollMs`, until it says a broker listens.
 * After a connect that found nothing listening, a broker back after a long outage is tried at
 * once, not up to a capped backoff later. Resolves at once when `signal` aborts.
 */
export async function backoffUntil(ms: number, listens: (() => Promise<boolean>) | undefined, pollMs: number, signal: AbortSignal): Promise<void> {
  const until = Date.now() + ms;
  for (let left = ms; left > 0 && !signal.aborted; left = until - Date.now()) {
    await delay(listens === undefined ? left : Math.min(pollMs, left), undefined, { signal, ref: false }).catch(() => undefined);
    if (listens === undefined || signal.aborted || (await listens())) return;
  }
}

type State = 'connecting' | 'up' | 'down' | 'closed';

interface Waiter {
  readonly ticket: RequestTicket;
  readonly timer: NodeJS.Timeout;
  answer(a: Answer): void;
}

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

/** `p`, or a retriable LoopguardError once `ms` have passed; `what` is read then. */
function bounded<T>(p: Promise<T>, ms: number, what: string | (() => string)): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new LoopguardError(ERROR_CODES.kafka, `${typeof what === 'string' ? what : what()}: no answer in ${ms} ms`, {}, true)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export interface InputTopic {
  readonly topic: keyof TopicNames;
  readonly codec: ValueCodec;
}

export class Connection {
  readonly topics: TopicNames;
  readonly timeoutMs: number;
  readonly log: Logger;
  /** Resolves once connected, once known to be down, or after the first connect's grace; rejects on a definitive error of the first connect. */
  readonly ready: Promise<void>;
  private readonly settings: Pick<LoopguardSettings, 'kafka' | 'schemaRegistry'>;
  private readonly clientLog: Logger;
  private readonly catalog: SchemaCatalog;
  private readonly outbox = new Outbox(MAX_QUEUED);
  private readonly outage: OutageLog;
  private readonly waiters = new Map<string, Waiter>();
  /** Decision partitions followed: a new link follows them again before it takes requests. */
  private readonly followed = new Set<number>();
  private readonly registered = new Set<string>();
  private readonly stop = new AbortController();
  private listeners: Array<(d: Decision) => void> = [];
  private correlationOf?: (d: Decision) => string | undefined;
  private state: State = 'connecting';
  private closing: Promise<void> | undefined;
  private link: Link | undefined;
  private linkLost: Promise<never> = new Promise(() => undefined);
  private loseLink: (e: Error) => void = () => undefined;
  private wake: (() => void) | undefined;
  private readonly idleWaiters = new Set<() => void>();
  private inFlight = 0;
  private probing = false;
  private answeredByPolicy = 0;
  private readySettled = false;
  private settleReady!: (e?: Error) => void;

  private constructor(
    opts: ClientOptions,
    private readonly inputs: readonly InputTopic[],
  ) {
    this.topics = { ...DEFAULT_TOPICS, ...opts.topics };
    this.timeoutMs = opts.timeoutMs ?? 2000;
    this.settings = configFrom({
      loopguard: {
        kafka: {
          brokers: [...opts.brokers],
          clientId: opts.clientId ?? 'loopguard-sdk',
          ssl: opts.ssl ?? false,
          ...(opts.sasl ? { sasl: opts.sasl } : {}),
          ...(opts.kafkaClient ? { client: opts.kafkaClient } : {}),
        },
        schemaRegistry: { url: opts.schemaRegistryUrl, ...(opts.schemaRegistryCaFile !== undefined ? { caFile: opts.schemaRegistryCaFile } : {}) },
      },
    }).settings;
    this.log = opts.logger ?? createLogger({ log: { level: 'warn', redact: true } }, 'loopguard-sdk');
    // The Kafka client's own lines (every refused connect, every retry) would bury the one
    // outage line; they are there at debug.
    this.clientLog = this.log.child({ component: 'kafka-client' }, { level: this.log.isLevelEnabled('debug') ? 'debug' : 'silent' });
    if (this.settings.kafka.client !== kafkaClientInUse(this.settings))
      this.log.warn('librdkafka was asked for but @confluentinc/kafka-javascript is not installed: running on kafkajs');
    this.catalog = SchemaCatalog.connect(this.settings.schemaRegistry);
    this.outage = new OutageLog(this.log, opts.failure);
    this.ready = new Promise<void>((resolve, reject) => {
      this.settleReady = (e) => {
        if (this.readySettled) return;
        this.readySettled = true;
        if (e === undefined) resolve();
        else reject(e);
      };
    });
  }

  /** A connection, connecting in the background; `ready` says when the first connect has settled. */
  static start(opts: ClientOptions, inputs: readonly InputTopic[]): Connection {
    const conn = new Connection(opts, inputs);
    const grace = setTimeout(() => {
      if (conn.state !== 'connecting') return;
      conn.down(new LoopguardError(ERROR_CODES.kafka, `no connection to Kafka and the schema registry after ${FIRST_GRACE_MS} ms`, {}, true));
    }, FIRST_GRACE_MS);
    grace.unref();
    void conn.connectLoop(true).finally(() => clearTimeout(grace));
    void conn.pump();
    return conn;
  }

  /** Whether loopguard can be reached now (false while connecting). */
  get reachable(): boolean {
    return this.state === 'up';
  }

  onDecision(listener: (d: Decision) => void): void {
    this.listeners.push(listener);
  }

  setCorrelation(f: (d: Decision) => string | undefined): void {
    this.correlationOf = f;
  }

  /**
   * Sends a request and resolves with the decision that carries `correlation`, or with why
   * there is none, within `timeoutMs`. Decisions land in the same partition number as their
   * input; its partition is followed before the request is sent.
   */
  request(topic: string, key: string, partitionKey: string, body: Buffer, correlation: string): Promise<Answer> {
    if (this.state === 'down' || this.state === 'closed' || this.closing !== undefined) {
      this.answeredByPolicy++;
      return Promise.resolve(UNREACHABLE);
    }
    return new Promise<Answer>((resolve) => {
      const ticket: RequestTicket = { acked: false, awaited: true };
      const timer = setTimeout(() => {
        this.waiters.delete(correlation);
        ticket.awaited = false;
        if (ticket.acked) return resolve(TIMEOUT);
        this.answeredByPolicy++;
        this.suspect();
        resolve(UNREACHABLE);
      }, this.timeoutMs);
      this.waiters.set(correlation, {
        ticket,
        timer,
        answer: (a) => {
          clearTimeout(timer);
          ticket.awaited = false;
          resolve(a);
        },
      });
      this.enqueue({ topic, key, partitionKey, body, request: ticket });
    });
  }

  /** Queues a publication; it is sent in the background (dropped only from a full queue). */
  publish(topic: string, key: string, partitionKey: string, body: Buffer): void {
    if (this.state === 'closed') return;
    this.enqueue({ topic, key, partitionKey, body });
  }

  /** Sends what is queued (waiting up to 5 s while connected), then closes. */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    if (this.state === 'up' || this.state === 'connecting') await Promise.race([this.idle(), delay(FLUSH_MS, undefined, { ref: false })]);
    if (this.outbox.size > 0) this.log.warn({ unsent: this.outbox.size }, 'closing with events loopguard never received');
    this.state = 'closed';
    this.stop.abort();
    this.answerAll(UNREACHABLE);
    this.nudge();
    const link = this.link;
    this.link = undefined;
    if (link !== undefined) await bounded(link.close(), FLUSH_MS, 'closing the connection').catch(() => undefined);
  }

  /** A method, not a field read: the state changes across the awaits of the loops that ask. */
  private isClosed(): boolean {
    return this.state === 'closed';
  }

  private enqueue(p: Pending): void {
    const dropped = this.outbox.push(p);
    if (dropped > 0) this.outage.dropped(this.counts(), MAX_QUEUED);
    this.nudge();
  }

  private counts(): OutageCounts {
    return { answeredByPolicy: this.answeredByPolicy, queued: this.outbox.size, dropped: this.outbox.dropped };
  }

  /** Connects, and keeps trying until it is connected or closed. */
  private async connectLoop(first: boolean): Promise<void> {
    let lastErr: string | undefined;
    for (let attempt = 0; !this.isClosed(); attempt++) {
      try {
        const link = await this.connectOnce();
        if (this.isClosed()) return void link.close().catch(() => undefined);
        return this.up(link, attempt + 1, lastErr);
      } catch (e) {
        if (this.isClosed()) return;
        const err = asError(e);
        lastErr = err.message;
        if (first && !this.readySettled && !isRetriable(err)) {
          // A definitive answer (credentials, a refused schema): connect() says so.
          this.state = 'closed';
          this.stop.abort();
          this.nudge(); // the pump sees the end
          this.settleReady(err instanceof LoopguardError ? err : new LoopguardError(ERROR_CODES.kafka, `cannot connect to loopguard: ${err.message}`, {}, false, { cause: err }));
          return;
        }
        this.down(err);
        await this.beforeRetry(attempt, err instanceof NothingListens);
      }
    }
  }

  /** The backoff between connects; after one that found no broker listening, only until one listens. */
  private beforeRetry(attempt: number, nothingListened: boolean): Promise<void> {
    const listens = () =>
      someBrokerListens(this.settings.kafka.brokers, PREFLIGHT_MS).then(
        () => true,
        () => false,
      );
    return backoffUntil(backoffMs(attempt), nothingListened ? listens : undefined, LISTEN_POLL_MS, this.stop.signal);
  }

  /** One connect, bounded: a link that comes up too late is closed again. */
  private async connectOnce(): Promise<Link> {
    let late = false;
    let at = 'checking that a broker listens';
    const step = (what: string) => void (at = what);
    const opening = (async () => {
      await someBrokerListens(this.settings.kafka.brokers, PREFLIGHT_MS);
      step('registering the schemas');
      await this.register();
      const topics = [this.topics.verdicts, ...this.inputs.map((i) => this.topics[i.topic])];
      const link = await openLink(this.settings, this.clientLog, topics, this.topics.verdicts, (r) => this.onRecord(r), step);
      step('following the decision partitions again');
      try {
        for (const p of this.followed) await link.follow(p);
      } catch (e) {
        void link.close().catch(() => undefined);
        throw e;
      }
      if (late) void link.close().catch(() => undefined);
      return link;
    })();
    try {
      // Past its bound it says what it waited for: what the outage's lines say when Kafka listens but does not answer.
      return await bounded(opening, ATTEMPT_MS, () => `connecting to Kafka and the schema registry (it was ${at})`);
    } catch (e) {
      late = true;
      throw e;
    }
  }

  /** Registers the schemas not registered yet (the registry may be down while Kafka is up). */
  private async register(): Promise<void> {
    const all = [...this.inputs.map((i) => ({ topic: this.topics[i.topic], codec: i.codec })), { topic: this.topics.verdicts, codec: decisionCodec }];
    for (const { topic, codec } of all) {
      if (this.registered.has(topic)) continue;
      await this.catalog.register(topic, codec, COMPATIBILITY.FULL_TRANSITIVE);
      this.registered.add(topic);
    }
  }

  /** Connected, at the `attempts`-th connect since it was last up, the one before failing with `lastErr`. */
  private up(link: Link, attempts: number, lastErr: string | undefined): void {
    this.link = link;
    this.linkLost = new Promise<never>((_, reject) => (this.loseLink = reject));
    this.linkLost.catch(() => undefined);
    this.state = 'up';
    this.settleReady();
    this.outage.back(this.counts(), attempts, lastErr);
    this.nudge();
  }

  /** Known to be down: every waiting request is answered by the policy now, and later ones at once. */
  private down(err: Error): void {
    if (this.state === 'closed') return;
    this.state = 'down';
    this.settleReady();
    this.answeredByPolicy += this.waiters.size;
    this.answerAll(UNREACHABLE);
    this.outbox.dropRequests();
    this.outage.failed(err, this.counts());
  }

  /** The link failed: it is closed, and a new one is sought. */
  private lost(link: Link, err: Error): void {
    if (this.link !== link || this.state !== 'up') return;
    this.link = undefined;
    this.loseLink(err);
    void bounded(link.close(), FLUSH_MS, 'closing the lost connection').catch(() => undefined);
    this.down(err);
    void this.connectLoop(false);
  }

  /**
   * A request Kafka did not acknowledge in time: if no broker listens, or none answers a
   * metadata request, the link is lost. A slow broker that answers keeps it.
   */
  private suspect(): void {
    const link = this.link;
    if (this.state !== 'up' || link === undefined || this.probing) return;
    this.probing = true;
    void (async () => {
      try {
        await someBrokerListens(this.settings.kafka.brokers, PREFLIGHT_MS);
        await bounded(link.probe(), PROBE_MS, 'asking Kafka for metadata');
      } catch (e) {
        this.lost(link, asError(e));
      } finally {
        this.probing = false;
      }
    })();
  }

  private answerAll(a: Answer): void {
    const waiting = [...this.waiters.values()];
    this.waiters.clear();
    for (const w of waiting) w.answer(a);
  }

  private nudge(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private idle(): Promise<void> {
    if (this.outbox.size === 0 && this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.add(resolve));
  }

  /** Sends the queue in order, one batch at a time, whenever the connection is up. */
  private async pump(): Promise<void> {
    for (;;) {
      while (this.state !== 'closed' && !(this.state === 'up' && this.outbox.size > 0)) await new Promise<void>((r) => (this.wake = r));
      if (this.state === 'closed') return;
      const link = this.link!;
      const lost = this.linkLost;
      const batch = this.outbox.take(MAX_BATCH);
      this.inFlight = batch.length;
      try {
        const records = batch.map((p) => this.record(link, p));
        for (const r of records.filter((_, i) => batch[i]!.request !== undefined)) {
          this.followed.add(r.partition);
          await Promise.race([link.follow(r.partition), lost]);
        }
        const sent = link.send(records);
        sent.catch(() => undefined); // a send given up with its lost link settles unheard
        await Promise.race([sent, lost]);
        for (const p of batch) if (p.request !== undefined) p.request.acked = true;
      } catch (e) {
        // Sent again on the next link: a record that did arrive is recognised by its eventId.
        this.outbox.putBack(batch);
        this.lost(link, asError(e));
      } finally {
        this.inFlight = 0;
        if (this.outbox.size === 0) for (const resolve of this.idleWaiters) resolve();
        if (this.outbox.size === 0) this.idleWaiters.clear();
      }
    }
  }

  private record(link: Link, p: Pending): OutRecord {
    return { topic: p.topic, partition: partitionFor(p.partitionKey, link.partitions.get(p.topic)!), key: p.key, value: this.catalog.frame(p.topic, p.body) };
  }

  private async onRecord(r: InRecord): Promise<void> {
    let d: Decision;
    try {
      d = await this.catalog.decode(r.value, decisionCodec);
    } catch (e) {
      this.log.warn({ err: (e as Error).message }, 'undecodable decision skipped');
      return;
    }
    for (const l of this.listeners) l(d);
    const c = this.correlationOf?.(d);
    const w = c === undefined ? undefined : this.waiters.get(c);
    if (w !== undefined) {
      this.waiters.delete(c!);
      w.answer({ decision: d });
    }
  }
}
