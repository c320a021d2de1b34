// Microloop 0.2.0 (crates.io / PyPI `microloop`, README "Stop burning API credits on loops"):
// exact (tool, arguments) repeats, arguments only, `max_repeats: 3`. Reimplemented as: a call is
// blocked once the same tool with the same arguments has been made `max_repeats` - 1 times in the
// run (the third identical call is blocked, as the survey of guards reads it), and every
// identical call after it too. No time window, no turns, no outcomes. Its regex rules are
// user-written and not modelled.
import { ALLOW, callOnlySession, identityOf } from './common.mjs';

const MAX_REPEATS = 3;

export const microloop = {
  name: 'Microloop',
  batchRule: false,
  session: () =>
    callOnlySession((run, s) => {
      run.seen ??= new Map();
      const id = identityOf(s);
      const count = (run.seen.get(id) ?? 0) + 1;
      run.seen.set(id, count);
      return count >= MAX_REPEATS ? { action: 'block', notify: true, detector: 'max_repeats', count } : ALLOW;
    }),
};
