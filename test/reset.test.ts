// Replay by resetting offsets: re-published decisions equal the originals, and a reset to a
// point in time re-publishes exactly the decisions from that point, with state before it rebuilt.
import { describe, expect, it } from 'vitest';
import { collectDecisions, lg, lgOk, ready, replayOf, waitFor, world, writeEvents } from './helpers/harness.js';
import { mixedTraffic } from './helpers/traffic.js';

async function runUntil(w: ReturnType<typeof world>, done: () => boolean) {
  const run = lg(['run', '--config', w.configFile]);
  await waitFor('the decisions', done);
  run.child.kill('SIGTERM');
  expect(await run.exited()).toBe(0);
}

describe('loopguard reset', () => {
  it('re-publishes from a point in time, then from the beginning, identical to the first run', async () => {
    const w = world('reset');
    const traffic = mixedTraffic(12, 30);
    const cut = Math.floor(traffic.length * 0.6);
    const [all, first, second] = [writeEvents(`${w.name}-all`, traffic), writeEvents(`${w.name}-a`, traffic.slice(0, cut)), writeEvents(`${w.name}-b`, traffic.slice(cut))];
    const expected = await replayOf(w, all);
    const before = await replayOf(w, first);
    const after = [...expected.keys()].filter((id) => !before.has(id));
    expect(after.length).toBeGreaterThan(50);

    await lgOk(['topics', 'create', '--config', w.configFile]);
    const got = await collectDecisions(w);
    await lgOk(['produce', '--config', w.configFile, first]);
    await runUntil(w, () => got.byId.size >= before.size);
    // Record timestamps are the producer's clock in ms: a reset point taken once the clock has
    // passed the first appends falls strictly after them and at or before the second ones.
    const firstAppended = Date.now();
    await waitFor('the clock to pass the first appends', () => Date.now() > firstAppended);
    const resetPoint = new Date().toISOString();
    await lgOk(['produce', '--config', w.configFile, second]);
    await runUntil(w, () => got.byId.size >= expected.size);
    expect(got.duplicates).toHaveLength(0);
    // The second run decided on state restored from the first run's changelog: a restore that
    // missed records decides differently from the replay.
    for (const [id, d] of got.byId) expect(d).toEqual(expected.get(id));

    const dry = await lgOk(['reset', '--config', w.configFile, '--to-datetime', resetPoint, '--dry-run']);
    expect(dry).toContain('publish decisions from');
    expect(dry).toContain('Dry run: nothing changed.');
    const refused = lg(['reset', '--config', w.configFile, '--to-datetime', resetPoint]);
    expect(await refused.exited()).toBe(2);
    expect(refused.output()).toContain('--yes');

    await lgOk(['reset', '--config', w.configFile, '--to-datetime', resetPoint, '--yes']);
    await runUntil(w, () => got.duplicates.length >= after.length);
    expect(new Set(got.duplicates.map((x) => x.again.id))).toEqual(new Set(after));
    for (const { first: original, again } of got.duplicates) expect(again).toEqual(original);

    await lgOk(['reset', '--config', w.configFile, '--to-earliest', '--yes']);
    const republished = got.duplicates.length;
    await runUntil(w, () => got.duplicates.length >= republished + expected.size);
    const second_ = got.duplicates.slice(republished);
    expect(new Set(second_.map((x) => x.again.id))).toEqual(new Set(expected.keys()));
    for (const { first: original, again } of second_) expect(again).toEqual(original);
  });

  it('refuses to reset a group that is running', async () => {
    const w = world('reset-busy');
    await lgOk(['topics', 'create', '--config', w.configFile]);
    const run = lg(['run', '--config', w.configFile]);
    await ready(run);
    const r = lg(['reset', '--config', w.configFile, '--to-earliest', '--yes']);
    expect(await r.exited()).not.toBe(0);
    expect(r.output()).toContain('active member');
  });
});
