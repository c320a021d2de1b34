// The tool-loop processor: per run (key = runId, else sessionKey), docs/behaviour.md §2.
import type { Process } from '../kernel/process.js';
import { defaultToolLoopConfig, resolverFor, type ToolLoopConfig } from './config.js';
import { liveState, type RunVerdict } from './decide.js';
import { decideRun } from './run.js';
import { runKeyOf, type ToolEvent } from './events.js';
import { evolveRun } from './evolve.js';
import { reactRun, type ToolLoopDecision } from './react.js';
import { MAX_EVENT_IDS, initialRunState, profileEmpty, type RunState } from './state.js';

export const TOOL_LOOP = 'tool-loop';

export type ToolLoopProcess = Process<RunState, ToolEvent, RunVerdict, ToolLoopDecision>;

export function toolLoopProcess(config: ToolLoopConfig = defaultToolLoopConfig): ToolLoopProcess {
  const resolve = resolverFor(config);
  const ttl = config.runTtlMs;
  return {
    name: TOOL_LOOP,
    initialState: initialRunState,
    keyOf: runKeyOf,
    decide: (state, event) => decideRun(state, event, resolve, ttl),
    evolve: (state, event, verdict) => evolveRun(state, event, verdict, resolve, ttl),
    react: reactRun,
    drops: (state, event, verdict) => (verdict.kind !== 'repeat' && event.eventId !== undefined && liveState(state, event.ts, ttl).seen.end >= MAX_EVENT_IDS ? ['event_id'] : []),
    isEmpty: (s) =>
      s.lastTs === null ||
      (s.agentId === null &&
        s.history.length === 0 &&
        s.guard === null &&
        s.aborted === null &&
        s.blocked === null &&
        s.spent === null &&
        s.warnings.length === 0 &&
        profileEmpty(s.profile) &&
        s.seen.end === 0),
    isExpired: (s, streamTime) => s.lastTs !== null && streamTime - s.lastTs > ttl,
  };
}

export * from './config.js';
export * from './events.js';
export * from './hashing.js';
export * from './state.js';
export { TOOL_DECISION, RUN_ABORT, type ToolDecision, type RunAbort, type ToolLoopDecision } from './react.js';
export type { RunVerdict } from './decide.js';
export { detect, isKnownPoll } from './detect.js';
export { toolLoopSessionProcess, initialSessionState, MAX_RUNS_PER_SESSION, type SessionState, type ToolLoopSessionProcess } from './session.js';
