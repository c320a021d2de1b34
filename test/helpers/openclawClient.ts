// The loopguard side of the differential test: plays a trace (test/helpers/openclawTraces.ts)
// through the real topology in memory (what `loopguard replay` runs), with the openclaw profile
// and tool events keyed by session, as a runner following docs/behaviour.md §6's protocol would:
// a call runs unless blocked; a turn's calls are all published before any runs, and a block of
// any of them runs none; an abort ends the run.
import { buildTopology } from '../../topology/build.js';
import { configFrom } from '../../topology/config.js';
import { InMemoryDriver } from '../../topology/testing/driver.js';
import type { Decision } from '../../topology/topology.js';
import type { Outcome, Trace, TraceCall } from './openclawTraces.js';

/** What a call got, as the model and the run see it. */
export interface CallResult {
  readonly toolCallId: string;
  readonly class: 'allow' | 'warn' | 'block';
  readonly detector?: string;
  readonly count?: number;
  /** The tool ran. */
  readonly ran: boolean;
  /** The count of the loop warning shown with the result, if one was. */
  readonly warning: number | null;
  /** A block shown in its place: the call that was blocked, or another call of its turn. */
  readonly shown: 'trigger' | 'sibling' | null;
  /** The run is being stopped for a repeated critical loop. */
  readonly terminal: boolean;
  /** The run was aborted after this call's outcome. */
  readonly abort: { readonly detector: string; readonly count: number } | null;
}

export function profileConfig(extra: Record<string, unknown> = {}) {
  return configFrom({ tools: { loopDetection: { enabled: true, profile: 'openclaw', ...extra } }, loopguard: { keyToolEventsBy: 'session' } });
}

type ToolDecision = Extract<Decision, { type: 'tool_decision' }>;
type RunAbort = Extract<Decision, { type: 'run_abort' }>;

export function playLoopguard(trace: Trace, driver = new InMemoryDriver(buildTopology(profileConfig()), 1)): CallResult[] {
  let ts = 1_700_000_000_000;
  const dead = new Set<string>();
  const out: CallResult[] = [];
  const base = (run: string) => ({ ts: (ts += 1000), sessionKey: trace.sessionKey, runId: run });
  const pipe = (event: Record<string, unknown>): readonly Decision[] => {
    const r = driver.pipe(event);
    if (!r.ok) throw new Error(`trace ${trace.id}: loopguard refused an event: ${r.reason}`);
    return r.decisions;
  };
  const call = (run: string, c: TraceCall, turnId?: string) => {
    const ds = pipe({ type: 'tool_call', ...base(run), toolCallId: c.toolCallId, toolName: c.toolName, args: c.args, ...(turnId ? { turnId } : {}) });
    const decision = ds.find((d): d is ToolDecision => d.type === 'tool_decision')!;
    const abort = ds.find((d): d is RunAbort => d.type === 'run_abort');
    return { decision, abort };
  };
  const outcome = (run: string, c: TraceCall, o: Outcome): RunAbort | undefined => {
    const event = {
      type: 'tool_outcome',
      ...base(run),
      toolCallId: c.toolCallId,
      toolName: c.toolName,
      args: c.args,
      ...(o.error !== undefined ? { error: o.error } : { result: o.result }),
    };
    return pipe(event).find((d): d is RunAbort => d.type === 'run_abort');
  };
  const classOf = (d: ToolDecision) => (d.decision === 'allow' ? { class: d.decision } : { class: d.decision, detector: d.detector!, count: d.count! });
  for (const step of trace.steps) {
    if (dead.has(step.run)) continue;
    if (step.kind === 'compaction') pipe({ type: 'compaction', ...base(step.run) });
    else if (step.kind === 'end') pipe({ type: 'run_end', ...base(step.run) });
    else if (step.kind === 'call') {
      const { decision: d, abort: ended } = call(step.run, step);
      const ran = d.decision !== 'block';
      const abort = ran ? outcome(step.run, step, step.outcome) : undefined;
      if (abort !== undefined || ended !== undefined) dead.add(step.run);
      // The single-call path shows a warning with a result only (a thrown error carries none).
      const warning = ran && d.decision === 'warn' && d.notify === true && step.outcome.error === undefined ? d.count : null;
      out.push({
        toolCallId: step.toolCallId,
        ...classOf(d),
        ran,
        warning,
        shown: ran ? null : 'trigger',
        terminal: false,
        abort: abort ? { detector: abort.detector, count: abort.count } : null,
      } as CallResult);
    } else {
      const decided = step.calls.map((c) => call(step.run, c, step.turnId));
      const blocked = decided.some(({ decision }) => decision.decision === 'block');
      const terminal = decided.some(({ abort }) => abort?.detector === 'critical_loop_repeated');
      if (decided.some(({ abort }) => abort !== undefined)) dead.add(step.run);
      step.calls.forEach((c, i) => {
        const d = decided[i]!.decision;
        if (blocked) {
          const trigger = d.decision === 'block' && d.turnBlockedBy === null;
          out.push({ toolCallId: c.toolCallId, ...classOf(d), ran: false, warning: null, shown: trigger ? 'trigger' : 'sibling', terminal, abort: null } as CallResult);
          return;
        }
        // After an abort the rest of the turn does not run.
        if (dead.has(step.run)) {
          out.push({ toolCallId: c.toolCallId, ...classOf(d), ran: false, warning: null, shown: null, terminal: false, abort: null } as CallResult);
          return;
        }
        const abort = outcome(step.run, c, c.outcome);
        if (abort !== undefined) dead.add(step.run);
        // In a turn the warning is shown with the call's result, error or not.
        const warning = d.decision === 'warn' && d.notify === true ? d.count : null;
        out.push({
          toolCallId: c.toolCallId,
          ...classOf(d),
          ran: true,
          warning,
          shown: null,
          terminal: false,
          abort: abort ? { detector: abort.detector, count: abort.count } : null,
        } as CallResult);
      });
    }
  }
  return out;
}
