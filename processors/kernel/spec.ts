// given / when / then for processors: `given(process, events).when(event).then(expect)`.
// `given` folds the history through the real `step`, so specs exercise exactly what runs in
// production; `then` receives the decisions of the `when` event alone.
import { fold, step, type Process } from './process.js';

export interface Scenario<S, E, D> {
  when(event: E): { then(check: (decisions: readonly D[], state: S) => void): void; decisions: readonly D[]; state: S };
  /** Decisions for each of a series of `when` events, in order. */
  whenAll(events: readonly E[]): readonly D[];
  readonly state: S;
}

export function given<S, E, V, D>(process: Process<S, E, V, D>, history: readonly E[] = [], state?: S): Scenario<S, E, D> {
  const before = fold(process, state ?? process.initialState, history).state;
  return {
    state: before,
    when(event) {
      const r = step(process, before, event);
      return { decisions: r.decisions, state: r.state, then: (check) => check(r.decisions, r.state) };
    },
    whenAll(events) {
      return fold(process, before, events).decisions;
    },
  };
}
