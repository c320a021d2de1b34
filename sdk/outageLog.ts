// What a client says about its connection to loopguard: an outage once when it starts, then
// at most once per `everyMs` while it lasts, and once when it ends. Everything in between
// (each call answered by the policy, each failed reconnect) is counted, not logged.
import type { Logger } from '../topology/logger.js';

export interface OutageCounts {
  /** Requests answered by the failure policy during the outage. */
  readonly answeredByPolicy: number;
  /** Events waiting to be sent. */
  readonly queued: number;
  /** Events dropped since the client started because too many were waiting. */
  readonly dropped: number;
}

export class OutageLog {
  private since: number | undefined;
  private lastSaid = 0;
  private dropSaid: number | undefined;

  constructor(
    private readonly log: Logger,
    private readonly failure: 'open' | 'closed',
    private readonly everyMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  get down(): boolean {
    return this.since !== undefined;
  }

  /** A failed connect or a lost connection: said when the outage starts, then at a bounded rate. */
  failed(err: Error, counts: OutageCounts): void {
    const t = this.now();
    if (this.since === undefined) {
      this.since = t;
      this.lastSaid = t;
      this.log.warn(
        { err: err.message, failure: this.failure },
        `loopguard is unreachable (Kafka or the schema registry cannot be reached): calls are answered by the failure policy (${this.failure}) until it is back; reconnecting in the background`,
      );
      return;
    }
    if (t - this.lastSaid < this.everyMs) return;
    this.lastSaid = t;
    this.log.warn({ err: err.message, downForMs: t - this.since, ...counts }, 'loopguard is still unreachable; reconnecting in the background');
  }

  /**
   * Connected again after an outage (nothing is said when there was none): `attempts` connects
   * were made meanwhile, the last one failing with `lastErr`.
   */
  back(counts: OutageCounts, attempts = 0, lastErr?: string): void {
    if (this.since === undefined) return;
    const downForMs = this.now() - this.since;
    this.since = undefined;
    this.log.warn(
      { downForMs, ...counts, attempts, ...(lastErr !== undefined ? { lastErr } : {}) },
      'loopguard is reachable again: decisions resume, queued events are being sent',
    );
  }

  /** Publications dropped from a full queue: said at the same bounded rate. */
  dropped(counts: OutageCounts, maxQueued: number): void {
    const t = this.now();
    if (this.dropSaid !== undefined && t - this.dropSaid < this.everyMs) return;
    this.dropSaid = t;
    this.log.warn({ ...counts, maxQueued }, `more than ${maxQueued} events wait to be sent: the oldest are dropped`);
  }
}
