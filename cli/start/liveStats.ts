// What `start` shows about the processor it runs: the processor's own telemetry, counted in
// process (and passed on to the Prometheus metrics unchanged).
import type { DecisionLabels, Telemetry } from '../../topology/runtime/telemetry.js';

export interface GuardStatus {
  readonly ready: boolean;
  readonly events: number;
  /** Over the time since the previous sample. */
  readonly eventsPerSecond: number;
  /** Decisions published, by verdict (allow / warn / block / abort / deliver / suppress). */
  readonly decisions: Readonly<Record<string, number>>;
  /** Records behind the high watermark, summed over the assigned input partitions. */
  readonly lag: number;
}

export class LiveStats implements Telemetry {
  private events = 0;
  private readonly decisions: Record<string, number> = {};
  private readonly lags = new Map<string, number>();
  private ready = false;
  private last = { at: 0, events: 0 };
  private current: GuardStatus = { ready: false, events: 0, eventsPerSecond: 0, decisions: {}, lag: 0 };

  constructor(private readonly inner: Telemetry) {}

  // The processor reports a batch's events and decisions once per type / label set, with how
  // many: both are counted and passed on with their count (counting calls undercounted).
  event(type: string, count: number): void {
    this.events += count;
    this.inner.event(type, count);
  }
  decision(labels: DecisionLabels, count: number): void {
    const acted = labels.decision === 'run_abort' ? 'abort' : labels.decision;
    const verdict = labels.shadow && acted !== 'allow' && acted !== 'deliver' ? `would ${acted}` : acted;
    this.decisions[verdict] = (this.decisions[verdict] ?? 0) + count;
    this.inner.decision(labels, count);
  }
  deadLetter(reason: string): void {
    this.inner.deadLetter(reason);
  }
  trip(what: string, shadow: boolean): void {
    this.inner.trip(what, shadow);
  }
  stateDrop(topic: string, what: string): void {
    this.inner.stateDrop(topic, what);
  }
  lag(topic: string, partition: number, lag: number): void {
    this.lags.set(`${topic}/${partition}`, lag);
    this.inner.lag(topic, partition, lag);
  }
  restored(topic: string, seconds: number, records: number): void {
    this.inner.restored(topic, seconds, records);
  }
  latency(seconds: number): void {
    this.inner.latency(seconds);
  }
  batch(seconds: number): void {
    this.inner.batch(seconds);
  }
  setReady(ready: boolean): void {
    this.ready = ready;
    this.inner.setReady(ready);
  }
  setLive(live: boolean): void {
    this.inner.setLive(live);
  }

  /** Takes a new sample at `nowMs` (a display rate, so the wall clock is the right one). */
  sample(nowMs: number): GuardStatus {
    const seconds = (nowMs - this.last.at) / 1000;
    const rate = this.last.at === 0 || seconds <= 0 ? 0 : (this.events - this.last.events) / seconds;
    this.last = { at: nowMs, events: this.events };
    let lag = 0;
    for (const l of this.lags.values()) lag += l;
    this.current = { ready: this.ready, events: this.events, eventsPerSecond: rate, decisions: { ...this.decisions }, lag };
    return this.current;
  }

  /** The latest sample. */
  status(): GuardStatus {
    return this.current;
  }
}

const ORDER = ['allow', 'warn', 'block', 'abort', 'deliver', 'suppress', 'would warn', 'would block', 'would abort', 'would suppress'];

export function formatStatus(s: GuardStatus): string {
  const decisions =
    ORDER.filter((k) => (s.decisions[k] ?? 0) > 0)
      .map((k) => `${s.decisions[k]} ${k}`)
      .join(' · ') || 'no decisions yet';
  return `${s.ready ? '● ready' : '○ restoring'}  ${s.eventsPerSecond.toFixed(1)} events/s  ${decisions}  lag ${s.lag}`;
}
