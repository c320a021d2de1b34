// Partitions that move between instances, and a processor killed mid-stream: the decisions
// (deduplicated by id) still equal the replay, none missing, repeats identical.
import { describe, expect, it } from 'vitest';
import { collectDecisions, lg, lgOk, replayOf, waitFor, world, writeEvents, type Collected } from './helpers/harness.js';
import { mixedTraffic } from './helpers/traffic.js';

function expectSameAsReplay(got: Collected, expected: Map<string, Record<string, unknown>>) {
  expect(got.byId.size).toBe(expected.size);
  for (const [id, d] of expected) expect(got.byId.get(id), id).toEqual(d);
  for (const { first, again } of got.duplicates) expect(again).toEqual(first);
}

/** The partitions an instance holds now, from its last "partitions assigned" log line. */
function held(log: string): string[] {
  const lines = log.split('\n').filter((l) => l.includes('"msg":"partitions assigned"'));
  const last = lines.at(-1);
  if (last === undefined) return [];
  const assignment = (JSON.parse(last) as { assignment: Record<string, number[]> }).assignment;
  return Object.entries(assignment).flatMap(([t, ps]) => ps.map((p) => `${t}/${p}`));
}

describe('partitions moving between instances', () => {
  it("restores a stopped instance's partitions on the other and continues from there", async () => {
    const w = world('rebalance', {}, 6);
    const traffic = mixedTraffic(30, 40);
    const half = Math.floor(traffic.length / 2);
    const all = writeEvents(`${w.name}-all`, traffic);
    const first = writeEvents(`${w.name}-1`, traffic.slice(0, half));
    const second = writeEvents(`${w.name}-2`, traffic.slice(half));
    const expected = await replayOf(w, all);

    await lgOk(['topics', 'create', '--config', w.configFile]);
    const a = lg(['run', '--config', w.configFile]);
    const b = lg(['run', '--config', w.configFile]);
    const got = await collectDecisions(w);
    // both members of the group hold partitions before the stream starts
    const split = () => {
      const [ha, hb] = [held(a.output()), held(b.output())];
      return ha.length > 0 && hb.length > 0 && new Set([...ha, ...hb]).size === 12 && ha.length + hb.length === 12;
    };
    await waitFor('the 12 input partitions split between two members', split);
    await lgOk(['produce', '--config', w.configFile, first]);
    const firstHalf = await replayOf(w, first);
    await waitFor('decisions for the first half', () => [...firstHalf.keys()].every((id) => got.byId.has(id)));

    a.child.kill('SIGTERM');
    expect(await a.exited()).toBe(0);
    await waitFor("b to take over a's partitions", () => held(b.output()).length === 12);
    await lgOk(['produce', '--config', w.configFile, second]);
    await waitFor(`all ${expected.size} decisions`, () => got.byId.size >= expected.size);

    expectSameAsReplay(got, expected);
    expect(b.output()).toMatch(/"records":[1-9]\d*,"ms":\d+,"msg":"state restored from changelog"/);
  });
});

describe('a processor killed with SIGKILL', () => {
  it('loses no decision and counts no event twice after a restart', async () => {
    const w = world('sigkill', {}, 3);
    const traffic = mixedTraffic(60, 60);
    const expected = await replayOf(w, writeEvents(w.name, traffic));
    // The second half is produced only after the kill, so the restart always has work left
    // (the whole first half was folded within one poll of the decisions in some runs).
    const half = Math.floor(traffic.length / 2);
    await lgOk(['topics', 'create', '--config', w.configFile]);
    await lgOk(['produce', '--config', w.configFile, writeEvents(`${w.name}-first`, traffic.slice(0, half))]);
    const got = await collectDecisions(w);

    const first = lg(['run', '--config', w.configFile]);
    await waitFor('the first decisions', () => got.byId.size >= 200);
    first.child.kill('SIGKILL');
    await first.exited();
    expect(got.byId.size).toBeLessThan(expected.size);
    await lgOk(['produce', '--config', w.configFile, writeEvents(`${w.name}-second`, traffic.slice(half))]);

    lg(['run', '--config', w.configFile]);
    await waitFor(`all ${expected.size} decisions`, () => got.byId.size >= expected.size);
    expectSameAsReplay(got, expected);
  });
});
