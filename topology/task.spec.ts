import { describe, expect, it } from 'vitest';
import { buildTopology } from './build.js';
import { configFrom } from './config.js';
import { PartitionTask, SWEEP_INTERVAL_MS } from './task.js';

const config = configFrom({ tools: { loopDetection: { enabled: true } }, loopguard: { runTtlSeconds: 60 } });
const [toolNode] = buildTopology(config).nodes;
const call = (ts: number, runId = 'r1') => ({ type: 'tool_call', ts, runId, toolName: 'read', args: { p: 1 } });
const rec = (offset: number, value: unknown) => ({ topic: 'loopguard.tool-events', partition: 0, offset, value });
function parsedEvent(value: unknown): unknown {
  const p = toolNode!.parse(value);
  if (!p.ok) throw new Error(p.reason);
  return p.value;
}

describe('partition task', () => {
  it('gives deterministic ids from the source position, or from the eventId when there is one', () => {
    const t = new PartitionTask(toolNode!, 0);
    const a = t.process(rec(0, call(1)));
    const b = t.process(rec(1, { ...call(2), eventId: 'e-2' }));
    expect(a.kind === 'decided' && a.decisions[0]?.id).toBe('loopguard.tool-events/0/0/tool_decision');
    expect(b.kind === 'decided' && b.decisions[0]?.id).toBe('tool-loop/r1/e-2/tool_decision');
  });
  it('skips a record its restored state has already folded (no second effect after a crash)', () => {
    const first = new PartitionTask(toolNode!, 0);
    for (let i = 0; i < 5; i++) first.process(rec(i, call(i)));
    const dirty = first.drainDirty();
    expect(dirty.map(([k]) => k)).toEqual(['r1']);
    const restored = new PartitionTask(toolNode!, 0);
    restored.restore('r1', dirty[0]![1]);
    expect(restored.process(rec(3, call(3)))).toEqual({ kind: 'replayed', key: 'r1' });
    expect(restored.process(rec(5, call(5))).kind).toBe('decided');
  });
  it('skips the very record its restored state ends at (the last folded offset is not folded twice)', () => {
    const first = new PartitionTask(toolNode!, 0);
    for (let i = 0; i < 5; i++) first.process(rec(i, call(i)));
    const [key, entry] = first.drainDirty()[0]!;
    expect(entry?.offset).toBe(4);
    const restored = new PartitionTask(toolNode!, 0);
    restored.restore(key, entry!);
    expect(restored.process(rec(4, call(4)))).toEqual({ kind: 'replayed', key: 'r1' });
    expect(restored.get('r1')).toBe(entry);
    expect(restored.drainDirty()).toEqual([]);
  });
  it('reports invalid events with the reason instead of throwing', () => {
    const t = new PartitionTask(toolNode!, 0);
    expect(t.process(rec(0, { type: 'tool_call', ts: 1, toolName: 'x', args: {} }))).toMatchObject({ kind: 'invalid', reason: expect.stringContaining('sessionKey or runId') });
  });
  it('sweeps idle runs on stream time into markers, and tombstones them once the commit passes', () => {
    const t = new PartitionTask(toolNode!, 0);
    t.process(rec(0, call(0, 'idle')));
    t.drainDirty();
    // another run moves stream time past the TTL and a sweep interval
    t.process(rec(1, call(SWEEP_INTERVAL_MS + 61_000, 'busy')));
    const swept = new Map(t.drainDirty());
    expect(toolNode!.process.isEmpty((swept.get('idle') as { state: unknown }).state)).toBe(true);
    t.compact(1);
    expect(t.drainDirty()).toEqual([['idle', null]]);
    expect(t.get('idle')).toBeUndefined();
    // The other run stays, as the one record that folded it left it.
    expect(t.get('busy')).toMatchObject({ offset: 1 });
    expect(toolNode!.process.isEmpty(t.get('busy')!.state)).toBe(false);
  });
  it('keeps a dropped run as a marker until its offset is committed (run_end)', () => {
    const t = new PartitionTask(toolNode!, 0);
    t.process(rec(0, call(1)));
    t.process(rec(1, { type: 'run_end', ts: 2, runId: 'r1' }));
    t.compact(1);
    // The marker: the run_end's offset and the run's state dropped.
    expect(t.get('r1')).toMatchObject({ offset: 1 });
    expect(toolNode!.process.isEmpty(t.get('r1')!.state)).toBe(true);
    t.compact(2);
    expect(t.get('r1')).toBeUndefined();
    expect(t.drainDirty().at(-1)).toEqual(['r1', null]);
  });
  it('folds the same through foldAt as through processEvent: decisions, ids and sources', () => {
    const events = [call(1), call(2), { ...call(3), eventId: 'e-3' }, call(4), call(5, 'r2')];
    const viaProcess = new PartitionTask(toolNode!, 2);
    const viaFoldAt = new PartitionTask(toolNode!, 2);
    events.forEach((e, i) => {
      const r = viaProcess.processEvent({ topic: 'loopguard.tool-events', partition: 2, offset: i, value: e }, parsedEvent(e));
      expect(r.kind).toBe('decided');
      expect(viaFoldAt.foldAt(i, parsedEvent(e))).toEqual(r.kind === 'decided' ? r.decisions : []);
    });
    expect(viaFoldAt.get('r1')).toEqual(viaProcess.get('r1'));
    // A redelivery (an offset already folded) has no decisions and changes nothing.
    expect(viaFoldAt.foldAt(1, parsedEvent(call(9)))).toEqual([]);
    expect(viaFoldAt.get('r1')).toEqual(viaProcess.get('r1'));
  });
  it('foldAt reads the clock again before it rejects a ts beyond the future-skew limit', () => {
    let now = 1_000_000;
    const t = new PartitionTask(toolNode!, 0, { maxFutureSkewMs: 1000, now: () => now });
    const event = (ts: number) => parsedEvent(call(ts));
    expect(t.foldAt(0, event(now + 1000))).toHaveLength(1);
    expect(t.foldAt(1, event(now + 1001))).toBe("ts: 1001001 is more than 1 s ahead of this host's clock");
    now += 5000;
    expect(t.foldAt(2, event(1_001_001))).toHaveLength(1);
  });
});
