// Builders for tool events in specs: one run, timestamps that advance by one second per event.
import type { ToolEvent } from '../events.js';

export function runEvents(runId = 'run-1', start = 1_700_000_000_000) {
  let ts = start;
  let n = 0;
  const next = () => (ts += 1000);
  return {
    call: (toolName: string, args: unknown, extra: Record<string, unknown> = {}): ToolEvent =>
      ({ type: 'tool_call', ts: next(), sessionKey: 's', runId, toolName, args, toolCallId: `c${++n}`, ...extra }) as ToolEvent,
    outcome: (toolName: string, args: unknown, result: unknown, extra: Record<string, unknown> = {}): ToolEvent =>
      ({ type: 'tool_outcome', ts: next(), sessionKey: 's', runId, toolName, args, result, ...extra }) as ToolEvent,
    error: (toolName: string, args: unknown, error: unknown): ToolEvent =>
      ({ type: 'tool_outcome', ts: next(), sessionKey: 's', runId, toolName, args, error }) as ToolEvent,
    compaction: (): ToolEvent => ({ type: 'compaction', ts: next(), sessionKey: 's', runId }) as ToolEvent,
    runEnd: (): ToolEvent => ({ type: 'run_end', ts: next(), sessionKey: 's', runId }) as ToolEvent,
    /** A call followed by its outcome, `times` times. */
    repeat(times: number, toolName: string, args: unknown, result: (i: number) => unknown): ToolEvent[] {
      const out: ToolEvent[] = [];
      for (let i = 0; i < times; i++) out.push(this.call(toolName, args), this.outcome(toolName, args, result(i)));
      return out;
    },
    advance: (ms: number) => { ts += ms; },
  };
}
