// One partition's worth of one processor: its partition-local state store, its stream time,
// and the fold of each record through the real `step`. The in-memory driver and the Kafka
// runtime both drive this class; it does no I/O itself.
//
// A record either folds completely or not at all: states are immutable, so `rollback` puts the
// previous entry back when the runtime cannot make a record's outputs durable.
import type { SourcePosition } from '../processors/kernel/contract.js';
import type { Trip } from '../processors/kernel/process.js';
import type { StoreEntry } from '../schemas/state.js';
import type { Decision, ProcessorNode } from './topology.js';

const NO_TRIPS: readonly Trip[] = [];
const NO_DECISIONS: readonly Decision[] = Object.freeze([]);

/** A decision from `react` while it is being stamped. */
interface Stamping {
  readonly type: string;
  id: string;
  source: SourcePosition;
}

export type { Decision, SourcePosition, StoreEntry };

export interface InputRecord extends SourcePosition {
  /** The decoded value (a parsed JSON object or a decoded Avro record). */
  readonly value: unknown;
}

export type TaskResult =
  | {
      readonly kind: 'decided';
      readonly key: string;
      readonly decisions: readonly Decision[];
      /** The key's entry before this record (for `rollback`). */
      readonly previous: StoreEntry | undefined;
      /** What bounded state had to forget for this record. */
      readonly drops: readonly string[];
      readonly trips: readonly Trip[];
    }
  | { readonly kind: 'invalid'; readonly reason: string; readonly code: InvalidCode }
  /** Already folded into the restored state (a redelivery after a crash): no second effect. */
  | { readonly kind: 'replayed'; readonly key: string };

export const INVALID = { event: 'invalid_event', futureTimestamp: 'future_timestamp' } as const;
export type InvalidCode = (typeof INVALID)[keyof typeof INVALID];

export const SWEEP_INTERVAL_MS = 60_000;

export interface TaskOptions {
  /** Events whose ts is further ahead of `now()` than this are invalid (a skewed or hostile clock). */
  readonly maxFutureSkewMs: number;
  /** The processing host's clock: consulted only for the future-skew limit, never for decisions. */
  readonly now: () => number;
  /** False when nothing reads `drainDirty` (the in-memory driver): changed keys are not tracked. */
  readonly changelog?: boolean;
}

export const DEFAULT_TASK_OPTIONS: TaskOptions = { maxFutureSkewMs: 300_000, now: Date.now };

export class PartitionTask {
  private readonly entries = new Map<string, StoreEntry>();
  /** Keys whose state is empty, kept only as offset markers until the input commit passes them. */
  private readonly markers = new Set<string>();
  private streamTime = Number.NEGATIVE_INFINITY;
  private lastSweep = Number.NEGATIVE_INFINITY;
  /** `foldAt`'s future-skew limit, as of its last reading of the clock. */
  private skewLimit = Number.NEGATIVE_INFINITY;
  /** Keys changed since the last `drainDirty`: what the changelog must receive. */
  private readonly dirty = new Set<string>();

  private readonly tracksDirty: boolean;

  constructor(
    readonly node: ProcessorNode,
    readonly partition: number,
    private readonly options: TaskOptions = DEFAULT_TASK_OPTIONS,
  ) {
    this.tracksDirty = options.changelog !== false;
  }

  get size(): number {
    return this.entries.size;
  }
  get time(): number {
    return this.streamTime;
  }

  process(record: InputRecord): TaskResult {
    const parsed = this.node.parse(record.value);
    if (!parsed.ok) return { kind: 'invalid', reason: parsed.reason, code: INVALID.event };
    return this.processEvent(record, parsed.value);
  }

  /** Folds an event already validated by `node.parse`. */
  processEvent(record: InputRecord, event: unknown): TaskResult {
    const ts = (event as { ts: number }).ts;
    if (ts > this.options.now() + this.options.maxFutureSkewMs) return { kind: 'invalid', code: INVALID.futureTimestamp, reason: this.aheadReason(ts) };
    const process = this.node.process;
    const key = process.keyOf(event);
    const previous = this.entries.get(key);
    if (previous !== undefined && record.offset <= previous.offset) return { kind: 'replayed', key };
    const state = previous?.state ?? process.initialState;
    const verdict = process.decide(state, event);
    const next = process.evolve(state, event, verdict);
    const drops = process.drops(state, event, verdict);
    const trips = process.trips?.(state, event, verdict) ?? NO_TRIPS;
    const decisions = this.stamp(process.react(event, verdict), key, event, record.topic, record.partition, record.offset);
    this.put(key, { state: next, offset: record.offset });
    this.advance(ts);
    return { kind: 'decided', key, decisions, previous, drops, trips };
  }

  /**
   * `processEvent` for the in-memory driver, of an event at `offset` of this partition's input
   * topic: its decisions (none for a redelivery), or the reason it is invalid. It leaves out what
   * only the Kafka runtime reads (the entry before, for rollback; drops and trips, for metrics),
   * which replay would otherwise build for every event only to drop.
   */
  foldAt(offset: number, event: unknown): readonly Decision[] | string {
    const ts = (event as { ts: number }).ts;
    // The clock is read again only for a ts beyond the limit it last gave: clocks move forward, so
    // a ts within an earlier limit is within the current one (a clock stepped back leaves the
    // earlier limit in force until an event passes it).
    if (ts > this.skewLimit) {
      this.skewLimit = this.options.now() + this.options.maxFutureSkewMs;
      if (ts > this.skewLimit) return this.aheadReason(ts);
    }
    const process = this.node.process;
    const key = process.keyOf(event);
    const previous = this.entries.get(key);
    if (previous !== undefined && offset <= previous.offset) return NO_DECISIONS;
    const state = previous?.state ?? process.initialState;
    const verdict = process.decide(state, event);
    const decisions = this.stamp(process.react(event, verdict), key, event, this.node.inputTopic, this.partition, offset);
    this.put(key, { state: process.evolve(state, event, verdict), offset });
    this.advance(ts);
    return decisions;
  }

  private aheadReason(ts: number): string {
    return `ts: ${ts} is more than ${this.options.maxFutureSkewMs / 1000} s ahead of this host's clock`;
  }

  // Each decision gets its id and source position, in place: `react` returns fresh decisions
  // that only this call holds, and copying one (18 fields) for two more was a third of replay's
  // allocation per decision. Ids and sources are built only when there are decisions (most
  // events have none), in a plain loop: no per-event closure, id base or source object.
  private stamp(made: readonly { readonly type: string }[], key: string, event: unknown, topic: string, partition: number, offset: number): readonly Decision[] {
    if (made.length === 0) return NO_DECISIONS;
    const eventId = this.node.eventIdOf(event);
    const base = eventId !== undefined ? `${this.node.name}/${key}/${eventId}` : `${topic}/${partition}/${offset}`;
    const source = { topic, partition, offset };
    for (let i = 0; i < made.length; i++) {
      const d = made[i] as Stamping;
      d.id = i === 0 ? `${base}/${d.type}` : `${base}/${d.type}/${i}`;
      d.source = source;
    }
    return made as readonly Decision[];
  }

  /** Undoes the last record of `key`: its entry goes back to what `processEvent` reported. */
  rollback(key: string, previous: StoreEntry | undefined): void {
    if (previous === undefined) {
      this.entries.delete(key);
      this.markers.delete(key);
      this.dirty.delete(key);
      return;
    }
    this.put(key, previous);
  }

  restore(key: string, entry: StoreEntry | null): void {
    if (entry === null) {
      this.entries.delete(key);
      this.markers.delete(key);
      return;
    }
    this.entries.set(key, entry);
    if (this.node.process.isEmpty(entry.state)) this.markers.add(key);
    else this.markers.delete(key);
  }

  get(key: string): StoreEntry | undefined {
    return this.entries.get(key);
  }

  /** Keys changed since the last call, with their entries (null: delete). */
  drainDirty(): Array<[string, StoreEntry | null]> {
    const out: Array<[string, StoreEntry | null]> = [];
    for (const k of this.dirty) out.push([k, this.entries.get(k) ?? null]);
    this.dirty.clear();
    return out;
  }

  /** Once input up to `committedOffset` is committed, empty markers below it can go. */
  compact(committedOffset: number): void {
    for (const k of this.markers) {
      const e = this.entries.get(k);
      if (e !== undefined && e.offset < committedOffset) {
        this.entries.delete(k);
        this.markers.delete(k);
        if (this.tracksDirty) this.dirty.add(k);
      }
    }
  }

  private put(key: string, entry: StoreEntry): void {
    this.entries.set(key, entry);
    if (this.tracksDirty) this.dirty.add(key);
    if (this.node.process.isEmpty(entry.state)) this.markers.add(key);
    else this.markers.delete(key);
  }

  // Stream time only moves forward; idle state is swept at most once a minute of it. A sweep
  // only frees memory: processors treat idle state as fresh on their own, and the future-skew
  // limit keeps stream time near the clock, so no producer can sweep other keys early.
  private advance(ts: number): void {
    if (ts <= this.streamTime) return;
    this.streamTime = ts;
    if (ts - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = ts;
    const process = this.node.process;
    for (const [k, e] of this.entries) {
      if (!this.markers.has(k) && process.isExpired(e.state, ts)) this.put(k, { state: process.initialState, offset: e.offset });
    }
  }
}
