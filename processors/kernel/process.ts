// The shape every loopguard processor has, in the manner of a decider. A Process folds facts
// (events that already happened) into per-key state: `decide` works out what an event causes
// from the state before it (the verdict), `evolve` folds the event and its verdict into the
// next state, and `react` renders the verdict as the decisions to publish. It is pure: no I/O,
// no clock, no logging; everything it knows comes from the event and the state.
//
// State is exactly what the changelog stores: a verdict is never parked in state for a later
// step to read. `evolve` never mutates the state it is given (a failed record is rolled back
// by keeping the old state), and its cost per event does not grow with the size of the state.

/** A guard that an event tripped: which one, and whether it was in shadow mode. */
export interface Trip {
  readonly what: string;
  readonly shadow: boolean;
}

export interface Process<S, E, V, D> {
  readonly name: string;
  readonly initialState: S;
  /** The partitioning key: every event with the same key folds into the same state. */
  keyOf(event: E): string;
  decide(state: S, event: E): V;
  evolve(state: S, event: E, verdict: V): S;
  react(event: E, verdict: V): readonly D[];
  /** What a bounded collection of the state had to forget for this event (counted in a metric). */
  drops(state: S, event: E, verdict: V): readonly string[];
  /** Guards this event tripped, i.e. cooldowns it started (counted in a metric); none when absent. */
  trips?(state: S, event: E, verdict: V): readonly Trip[];
  /** True when the state carries nothing worth keeping (the store deletes it: a tombstone). */
  isEmpty(state: S): boolean;
  /** True when a state is idle as of `streamTime` and may be dropped by a sweep. */
  isExpired(state: S, streamTime: number): boolean;
}

// Processors are stored and driven without knowing their types (the topology holds several).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyProcess = Process<any, any, any, { readonly type: string; readonly key: string }>;

export interface StepResult<S, D> {
  readonly state: S;
  readonly decisions: readonly D[];
}

/** The one way a processor is driven, by the in-memory driver and the Kafka runtime alike. */
export function step<S, E, V, D>(process: Process<S, E, V, D>, state: S, event: E): StepResult<S, D> {
  const verdict = process.decide(state, event);
  return { state: process.evolve(state, event, verdict), decisions: process.react(event, verdict) };
}

/** Folds events of one key from a state; what a restore followed by more input does. */
export function fold<S, E, V, D>(process: Process<S, E, V, D>, state: S, events: Iterable<E>): StepResult<S, D> {
  let current = state;
  const decisions: D[] = [];
  for (const event of events) {
    const r = step(process, current, event);
    current = r.state;
    for (const d of r.decisions) decisions.push(d);
  }
  return { state: current, decisions };
}
