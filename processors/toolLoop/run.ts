// A tool event's verdict for a run: redeliveries answered from memory, then the run's rules —
// §2's, the openclaw profile's (docs/behaviour.md §6) or the early preset's (§7), as the run's
// config selects.
import { lookupId } from '../kernel/idMemory.js';
import { decideDefault, liveState, type Resolve, type RunVerdict } from './decide.js';
import type { ToolEvent } from './events.js';
import { decideEarly } from './early/decide.js';
import { decideOpenclaw } from './openclaw/decide.js';
import { seenKey, type RunState } from './state.js';

/**
 * `scope`: the run's key, when tool events are keyed by session: the state is then the run's
 * within its session (its event ids remembered among the session's, its history the session's).
 */
export function decideRun(state: RunState, event: ToolEvent, resolve: Resolve, ttlMs: number, scope?: string): RunVerdict {
  const live = liveState(state, event.ts, ttlMs);
  if (event.eventId !== undefined) {
    const seen = lookupId(live.seen, seenKey(event.type, event.eventId, scope));
    if (seen.found) return { kind: 'repeat', verdict: seen.value };
  }
  const cfg = resolve(live.agentId ?? event.agentId);
  if (cfg.profile === undefined) return decideDefault(live, event, cfg);
  return cfg.profile === 'openclaw' ? decideOpenclaw(live, event, cfg, scope) : decideEarly(live, event, cfg);
}
