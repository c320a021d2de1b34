// The runs of one MCP session. MCP has no turns: a desktop session lasts as long as the app,
// and a run loopguard ended (escalation, a compaction loop) would block every later call of
// it. So a session is cut into runs by quiet periods: a call that comes after `quietMs`
// without any tool call or outcome (the user reading, then asking something new) starts a new
// run, and the previous one is ended (`run_end`). Calls a looping model makes back to back
// stay in one run. Times are the ones the proxy stamps on the events it publishes.
import { randomUUID } from 'node:crypto';
import type { RunRef } from '../../sdk/runner.js';

/** The quiet period that ends a run by default: longer than a model thinks between two calls of one task. */
export const DEFAULT_NEW_RUN_AFTER_MS = 120_000;

export class SessionRuns {
  private current: RunRef;
  private last: number | undefined;

  constructor(
    private readonly base: Omit<RunRef, 'runId'>,
    /** 0: one run for the whole session. */
    private readonly quietMs: number,
    private readonly onEnd: (run: RunRef) => void,
    private readonly newId: () => string = randomUUID,
  ) {
    this.current = { ...base, runId: newId() };
  }

  /** The run now, without starting one. */
  get run(): RunRef {
    return this.current;
  }

  /** The run of a call made at `now`: a new one after a quiet period. */
  callAt(now: number): RunRef {
    if (this.quietMs > 0 && this.last !== undefined && now - this.last >= this.quietMs) {
      this.onEnd(this.current);
      this.current = { ...this.base, runId: this.newId() };
    }
    this.last = now;
    return this.current;
  }

  /** Activity that keeps the run going (an outcome coming back). */
  touch(now: number): void {
    this.last = now;
  }
}
