// What the anchor rows share: a call's identity as argument-only guards see it (tool name and
// arguments, keys sorted), and a session shape for guards that see tool calls only.
import { canonicalJson } from '../../../dist/processors/toolLoop/hashing.js';

export const identityOf = (s) => `${s.toolName}\u0000${canonicalJson(s.args)}`;

const ALLOW = { action: 'allow', notify: false };

/**
 * A session for a guard that decides each call from the calls before it: `decide(run, step,
 * turnSeen)` returns the decision; `run` is per runId. Outcomes, compactions and channel events
 * are invisible to it (it never blocks a bot message).
 */
export function callOnlySession(decide) {
  const runs = new Map();
  const runOf = (id) => {
    let r = runs.get(id);
    if (r === undefined) runs.set(id, (r = { calls: [] }));
    return r;
  };
  return {
    calls(steps) {
      const turn = new Map();
      return steps.map((s) => decide(runOf(s.runId), s, turn));
    },
    outcome: () => undefined,
    compaction: () => undefined,
    runEnd: (s) => runs.delete(s.runId),
    bot: () => ALLOW,
    human: () => undefined,
  };
}

export { ALLOW };
