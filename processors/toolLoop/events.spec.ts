import { describe, expect, it } from 'vitest';
import { parseToolEvent, validateToolEvent as parse } from './events.js';
import { toolLoopProcess } from './index.js';
import { given } from '../kernel/spec.js';

describe('tool event validation', () => {
  it('accepts pre-hashed calls and outcomes', () => {
    expect(parse({ type: 'tool_call', ts: 1, runId: 'r', toolName: 'read', argsHash: 'read:abc', action: 'poll' })).toMatchObject({
      ok: true,
      value: { argsHash: 'read:abc', action: 'poll' },
    });
    expect(parse({ type: 'tool_outcome', ts: 1, sessionKey: 's', toolName: 'read', argsHash: 'read:abc', resultHash: 'x', unknownToolName: 'y' }).ok).toBe(true);
  });
  it('validates each event into its own fields only, whatever event came before it', () => {
    const full = { ts: 1, eventId: 'e', sessionKey: 's', runId: 'r', agentId: 'a', toolCallId: 'c', toolName: 't', args: { p: 1 }, action: 'poll', result: 1 };
    expect(parse({ type: 'tool_outcome', ...full }).ok).toBe(true);
    expect(parse({ type: 'compaction', ts: 2, runId: 'r' })).toEqual({ ok: true, value: { type: 'compaction', ts: 2, runId: 'r' } });
    expect(parse({ type: 'tool_call', ...full, result: undefined })).toMatchObject({ ok: true });
    expect(parse({ type: 'run_end', ts: 3, runId: 'r' })).toEqual({ ok: true, value: { type: 'run_end', ts: 3, runId: 'r' } });
  });
  it('treats null as absent', () => {
    const r = parse({ type: 'tool_call', ts: 1, runId: 'r', sessionKey: null, eventId: null, toolName: 'read', args: { a: 1 }, argsHash: null });
    expect(r).toMatchObject({ ok: true, value: { args: { a: 1 } } });
    expect(r.ok && r.value.eventId).toBeUndefined();
    expect(parse({ type: 'tool_call', ts: 1, runId: 'r', toolName: 'read', args: null }).ok).toBe(false);
  });
  it.each([
    [{ type: 'tool_call', runId: 'r', toolName: 'x', args: {} }, 'ts'],
    [{ type: 'tool_call', ts: '1', runId: 'r', toolName: 'x', args: {} }, 'ts'],
    [{ type: 'tool_call', ts: 1, toolName: 'x', args: {} }, 'sessionKey or runId'],
    [{ type: 'tool_call', ts: 1, runId: 'r', args: {} }, 'toolName'],
    [{ type: 'tool_call', ts: 1, runId: 'r', toolName: 'x' }, 'args or argsHash'],
    [{ type: 'tool_call', ts: 1, runId: 5, toolName: 'x', args: {} }, 'runId'],
    [{ type: 'tool_outcome', ts: 1, runId: 'r', toolName: 'x', args: {}, error: NaN }, 'error'],
    [{ type: 'compaction', ts: 1 }, 'sessionKey or runId'],
    [{ type: 'tool_result', ts: 1, runId: 'r' }, 'type'],
  ])('rejects %j naming %s', (event, what) => {
    const r = parse(event);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toContain(what);
  });
  it('uses argsHash when both args and argsHash are present', () => {
    const p = toolLoopProcess({ global: { enabled: true, warningThreshold: 2 }, agents: {}, runTtlMs: 1e9 });
    const call = (args: unknown) => {
      const r = parseToolEvent({ type: 'tool_call', ts: 1, runId: 'r', toolName: 'read', args, argsHash: 'read:fixed' });
      if (!r.ok) throw new Error(r.reason);
      return r.value;
    };
    given(p, [call({ a: 1 }), call({ a: 2 })])
      .when(call({ a: 3 }))
      .then((ds) => expect(ds[0]).toMatchObject({ decision: 'warn', count: 2 }));
  });
});
