// Runs one guard over traces closed loop and scores what happened (docs/behaviour.md §6 terms):
// a blocked call does not run and its outcome is never published; a loop is stopped at its
// first block or abort at or after its label; a call is wasted when it has the label's index or
// a later one and ran before the stop (identical calls of one turn count once); on legitimate
// traces every block or abort is a false block and every warning that reaches the model a false
// warning.

/** Groups consecutive calls that share a turnId; every other step stands alone. */
function* groups(steps) {
  for (let i = 0; i < steps.length;) {
    const s = steps[i];
    let j = i + 1;
    if (s.kind === 'call' && s.turnId !== undefined) while (j < steps.length && steps[j].kind === 'call' && steps[j].turnId === s.turnId) j++;
    yield steps.slice(i, j);
    i = j;
  }
}

const callKey = (s) => `${s.toolName}\u0000${JSON.stringify(s.args)}`;

/** Per trace: stopped, wasted, tokens (loops); calls, blocked, warned (all). */
export function scoreTrace(guard, trace) {
  const session = guard.session(trace);
  const r = { id: trace.id, family: trace.family, kind: trace.kind, label: trace.label, stoppedAt: null, early: false, wasted: 0, tokens: 0, calls: 0, blocked: 0, warned: 0 };
  const ended = new Set();
  const stop = (index) => {
    if (trace.kind !== 'loop' || r.stoppedAt !== null) return;
    if (index >= trace.label) r.stoppedAt = index;
    else r.early = true;
  };
  for (const group of groups(trace.steps)) {
    if (trace.kind === 'loop' && r.stoppedAt !== null) break;
    const first = group[0];
    if (first.kind === 'compaction') session.compaction(first);
    else if (first.kind === 'run_end') session.runEnd(first);
    else if (first.kind === 'human') session.human?.(first);
    else if (first.kind === 'bot') {
      r.calls++;
      const d = session.bot(first);
      if (d.action === 'block') {
        r.blocked++;
        stop(first.index);
      } else if (trace.kind === 'loop' && first.index >= trace.label) {
        r.wasted++;
        r.tokens += first.tokens;
      }
    } else scoreCalls(session, guard, trace, group, r, ended, stop);
  }
  return r;
}

function scoreCalls(session, guard, trace, group, r, ended, stop) {
  const runId = group[0].runId;
  r.calls += group.length;
  const decisions = ended.has(runId) ? group.map(() => ({ action: 'block', notify: true })) : session.calls(group);
  // A runner that asked for a whole turn runs none of it when any call of it was blocked
  // critically (the openclaw profile's batch protocol, docs/behaviour.md).
  const anyBlock = decisions.some((d) => d.action === 'block');
  const runs = decisions.map((d) => d.action !== 'block' && !(guard.batchRule && group.length > 1 && anyBlock));
  const wastedKeys = new Set();
  group.forEach((s, i) => {
    const d = decisions[i];
    if (!runs[i]) {
      r.blocked++;
      stop(s.index);
      return;
    }
    if (d.action === 'warn' && d.notify) r.warned++;
    if (trace.kind === 'loop' && r.stoppedAt === null && s.index >= trace.label) {
      r.tokens += s.tokens;
      const k = callKey(s);
      if (!wastedKeys.has(k)) {
        wastedKeys.add(k);
        r.wasted++;
      }
    }
  });
  if (decisions.some((d) => d.abort)) ended.add(runId);
  group.forEach((s, i) => {
    if (!runs[i] || ended.has(runId)) return;
    if (session.outcome(s)?.abort) ended.add(runId);
  });
  // An abort on an outcome ends the run: the loop is stopped at the next call it would make.
  if (ended.has(runId) && trace.kind === 'loop' && r.stoppedAt === null) {
    const last = group[group.length - 1].index;
    if (last + 1 >= trace.label) r.stoppedAt = last + 1;
  }
}

const quantile = (xs, q) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};
const pct = (n, d) => (d === 0 ? null : (100 * n) / d);

/** The columns of LoopBench's table for a set of scored traces (a family, or all of them). */
export function summarise(results) {
  const loops = results.filter((x) => x.kind === 'loop');
  const legit = results.filter((x) => x.kind === 'legit');
  const legitCalls = legit.reduce((n, x) => n + x.calls, 0);
  return {
    loops: loops.length,
    stopped: pct(loops.filter((x) => x.stoppedAt !== null).length, loops.length),
    early: pct(loops.filter((x) => x.early).length, loops.length),
    wastedMedian: quantile(
      loops.map((x) => x.wasted),
      0.5,
    ),
    wastedP95: quantile(
      loops.map((x) => x.wasted),
      0.95,
    ),
    tokensMedian: quantile(
      loops.map((x) => x.tokens),
      0.5,
    ),
    tokensP95: quantile(
      loops.map((x) => x.tokens),
      0.95,
    ),
    legit: legit.length,
    falseBlockTraces: pct(legit.filter((x) => x.blocked > 0).length, legit.length),
    falseBlockCalls: pct(
      legit.reduce((n, x) => n + x.blocked, 0),
      legitCalls,
    ),
    falseWarnTraces: pct(legit.filter((x) => x.warned > 0).length, legit.length),
    falseWarnCalls: pct(
      legit.reduce((n, x) => n + x.warned, 0),
      legitCalls,
    ),
  };
}
