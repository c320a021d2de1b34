// The tool-loop processor: per run (key = runId, else sessionKey), SPEC §2.
import type { Process } from '../kernel/process.js';
import { defaultToolLoopConfig, resolverFor, type ToolLoopConfig } from './config.js';
import { runKeyOf, type ToolEvent } from './events.js';
import { evolveRun } from './evolve.js';
import { reactRun, type ToolLoopDecision } from './react.js';
import { initialRunState, type RunState } from './state.js';

export const TOOL_LOOP = 'tool-loop';

export function toolLoopProcess(config: ToolLoopConfig = defaultToolLoopConfig): Process<RunState, ToolEvent, ToolLoopDecision> {
  const resolve = resolverFor(config);
  const ttl = config.runTtlMs;
  return {
    name: TOOL_LOOP,
    initialState: initialRunState,
    keyOf: runKeyOf,
    evolve: (state, event) => evolveRun(state, event, resolve, ttl),
    react: reactRun,
    isEmpty: (state) => state.lastTs === null,
    isExpired: (state, streamTime) => state.lastTs !== null && streamTime - state.lastTs > ttl,
  };
}

export * from './config.js';
export * from './events.js';
export * from './hashing.js';
export * from './state.js';
export type { ToolDecision, RunAbort, ToolLoopDecision } from './react.js';
export { detect, isKnownPoll } from './detect.js';
