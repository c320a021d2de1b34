import { describe, expect, it } from 'vitest';
import type { RunRef } from '../../sdk/runner.js';
import { SessionRuns } from './runs.js';

function session(quietMs: number) {
  let n = 0;
  const ended: RunRef[] = [];
  const runs = new SessionRuns(
    { sessionKey: 'desk:alice', agentId: 'coder' },
    quietMs,
    (r) => ended.push(r),
    () => `run-${++n}`,
  );
  return { runs, ended };
}

describe("an MCP session's runs", () => {
  it('keeps back-to-back calls in one run, however many', () => {
    const { runs, ended } = session(120_000);
    const ids = Array.from({ length: 50 }, (_, i) => runs.callAt(i * 5_000).runId);
    expect(new Set(ids)).toEqual(new Set(['run-1']));
    expect(ended).toEqual([]);
  });

  it('starts a new run with a call after the quiet period, ending the one before', () => {
    const { runs, ended } = session(120_000);
    expect(runs.callAt(0)).toEqual({ sessionKey: 'desk:alice', agentId: 'coder', runId: 'run-1' });
    expect(runs.callAt(119_999).runId).toBe('run-1');
    expect(runs.callAt(239_999).runId).toBe('run-2');
    expect(ended).toEqual([{ sessionKey: 'desk:alice', agentId: 'coder', runId: 'run-1' }]);
    expect(runs.run.runId).toBe('run-2');
  });

  it('counts the quiet period from the last outcome, so a long tool call is not a pause', () => {
    const { runs } = session(60_000);
    runs.callAt(0);
    runs.touch(300_000); // the call took five minutes
    expect(runs.callAt(330_000).runId).toBe('run-1');
  });

  it('keeps one run for the whole session with a quiet period of 0', () => {
    const { runs, ended } = session(0);
    expect([runs.callAt(0), runs.callAt(86_400_000)].map((r) => r.runId)).toEqual(['run-1', 'run-1']);
    expect(ended).toEqual([]);
  });
});
