// Tool events keyed by session (`loopguard.keyToolEventsBy: session`, docs/behaviour.md §6):
// one state per session, its runs inside. The runs stay distinct — each keeps its own abort,
// escalation, budgets, warnings and (for §2's rules) history, and decisions name their run —
// while what the session shares lives once: the history of its runs that follow the openclaw
// profile (30 records of them all, each run's detection reading its own), and the memory of
// event ids (the newest 4,096 of the session's, remembered per run).
import { emptyIds, type IdView } from '../kernel/idMemory.js';
import type { Process } from '../kernel/process.js';
import { resolverFor, type ToolLoopConfig, defaultToolLoopConfig } from './config.js';
import type { RunVerdict } from './decide.js';
import { decideRun } from './run.js';
import { runKeyOf, sessionKeyOf, type ToolEvent } from './events.js';
import { evolveRun } from './evolve.js';
import { reactRun, type ToolLoopDecision } from './react.js';
import { initialRunState, MAX_EVENT_IDS, profileEmpty, runState, type RunState, type ToolRecord, type Verdict } from './state.js';

export interface SessionState {
  /** Event time of the session's previous event; null for a session with no state. */
  readonly lastTs: number | null;
  /** The records of the session's runs that follow the openclaw profile, oldest first. */
  readonly history: readonly ToolRecord[];
  /** Each run's state by its key, least recently active first; their `seen` is unused (the session's holds their ids). */
  readonly runs: ReadonlyArray<readonly [string, RunState]>;
  readonly seen: IdView<Verdict | null>;
}

/** Runs a session keeps state for; beyond it, the least recently active run's state is dropped. */
export const MAX_RUNS_PER_SESSION = 32;

const NO_IDS: IdView<Verdict | null> = emptyIds(MAX_EVENT_IDS);

export const sessionState = (lastTs: number | null, history: readonly ToolRecord[], runs: SessionState['runs'], seen: SessionState['seen']): SessionState => ({
  lastTs,
  history,
  runs,
  seen,
});

export const initialSessionState: SessionState = sessionState(null, [], [], emptyIds(MAX_EVENT_IDS));

const runEmpty = (r: RunState): boolean =>
  r.agentId === null &&
  r.history.length === 0 &&
  r.guard === null &&
  r.aborted === null &&
  r.blocked === null &&
  r.spent === null &&
  r.warnings.length === 0 &&
  profileEmpty(r.profile);

export type ToolLoopSessionProcess = Process<SessionState, ToolEvent, RunVerdict, ToolLoopDecision>;

export function toolLoopSessionProcess(config: ToolLoopConfig = defaultToolLoopConfig): ToolLoopSessionProcess {
  const resolve = resolverFor(config);
  const ttl = config.runTtlMs;
  const live = (s: SessionState, ts: number): SessionState => (s.lastTs !== null && ts - s.lastTs > ttl ? initialSessionState : s);
  const find = (s: SessionState, key: string): RunState | undefined => s.runs.find(([k]) => k === key)?.[1];
  /** The run's state as its event sees it: idle for longer than the TTL, it starts fresh (the session's history stays). */
  const runOf = (s: SessionState, key: string, ts: number): RunState => {
    const r = find(s, key);
    return r === undefined || (r.lastTs !== null && ts - r.lastTs > ttl) ? initialRunState : r;
  };
  /** What decideRun and evolveRun fold: the run, with the session's ids, and the session's history for a run of the profile. */
  const view = (s: SessionState, run: RunState, event: ToolEvent): { readonly state: RunState; readonly shared: boolean } => {
    // Only the openclaw profile's history is the session's; §2's and the early preset's are the run's own.
    const shared = resolve(run.agentId ?? event.agentId).profile === 'openclaw';
    return {
      state: runState(run.lastTs, run.agentId, shared ? s.history : run.history, run.guard, run.aborted, run.blocked, run.spent, run.warnings, s.seen, run.profile),
      shared,
    };
  };
  return {
    name: 'tool-loop',
    initialState: initialSessionState,
    keyOf: sessionKeyOf,
    decide: (state, event) => {
      const s = live(state, event.ts);
      const key = runKeyOf(event);
      // The run's own TTL was applied by runOf: decideRun is given none.
      return decideRun(view(s, runOf(s, key, event.ts), event).state, event, resolve, Number.POSITIVE_INFINITY, key);
    },
    evolve: (state, event, verdict) => {
      if (verdict.kind === 'repeat') return state;
      const s = live(state, event.ts);
      const key = runKeyOf(event);
      const v = view(s, runOf(s, key, event.ts), event);
      const next = evolveRun(v.state, event, verdict, resolve, Number.POSITIVE_INFINITY, key);
      const own = runState(next.lastTs, next.agentId, v.shared ? [] : next.history, next.guard, next.aborted, next.blocked, next.spent, next.warnings, NO_IDS, next.profile);
      return sessionState(event.ts, v.shared ? next.history : s.history, withRun(s.runs, key, own), next.seen);
    },
    react: reactRun,
    drops: (state, event, verdict) => {
      if (verdict.kind === 'repeat') return [];
      const s = live(state, event.ts);
      const out: string[] = [];
      if (event.eventId !== undefined && s.seen.end >= MAX_EVENT_IDS) out.push('event_id');
      if (find(s, runKeyOf(event)) === undefined && s.runs.length >= MAX_RUNS_PER_SESSION) out.push('run');
      return out;
    },
    isEmpty: (s) => s.lastTs === null || (s.history.length === 0 && s.runs.length === 0 && s.seen.end === 0),
    isExpired: (s, streamTime) => s.lastTs !== null && streamTime - s.lastTs > ttl,
  };
}

/** The runs with `key`'s state put last (most recently active); an empty state leaves; the oldest go beyond the limit. */
function withRun(runs: SessionState['runs'], key: string, run: RunState): SessionState['runs'] {
  const next = runs.filter(([k]) => k !== key);
  if (!runEmpty(run)) next.push([key, run]);
  return next.length > MAX_RUNS_PER_SESSION ? next.slice(next.length - MAX_RUNS_PER_SESSION) : next;
}
