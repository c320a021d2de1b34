// The shape every loopguard processor has. A Process folds facts (events that already
// happened) into per-key state and reacts to them with decisions. It is pure: no I/O, no
// clock, no logging; everything it knows comes from the event and the state.
//
// `evolve` runs first and records in the state what the event caused (e.g. the verdict for a
// tool call); `react` then reads the new state and turns that into decisions. Keeping the
// verdict in state is what makes redeliveries idempotent: a repeated event finds its original
// answer there instead of computing a new one.

export interface Process<S, E, D> {
  readonly name: string;
  readonly initialState: S;
  /** The partitioning key: every event with the same key folds into the same state. */
  keyOf(event: E): string;
  evolve(state: S, event: E): S;
  react(state: S, event: E): readonly D[];
  /** True when the state carries nothing worth keeping (the store deletes it: a tombstone). */
  isEmpty(state: S): boolean;
  /** True when a state is idle as of `streamTime` and may be dropped by a sweep. */
  isExpired(state: S, streamTime: number): boolean;
}

export interface StepResult<S, D> {
  readonly state: S;
  readonly decisions: readonly D[];
}

/** The one way a processor is driven, by the in-memory driver and the Kafka runtime alike. */
export function step<S, E, D>(process: Process<S, E, D>, state: S, event: E): StepResult<S, D> {
  const next = process.evolve(state, event);
  return { state: next, decisions: process.react(next, event) };
}

/** Folds events of one key from a state; what a restore followed by more input does. */
export function fold<S, E, D>(process: Process<S, E, D>, state: S, events: Iterable<E>): StepResult<S, D> {
  let current = state;
  const decisions: D[] = [];
  for (const event of events) {
    const r = step(process, current, event);
    current = r.state;
    decisions.push(...r.decisions);
  }
  return { state: current, decisions };
}
