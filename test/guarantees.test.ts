// A processor SIGKILLed at several points of a long stream and restarted each time:
// exactly-once shows each decision once to a read-committed reader; at-least-once loses none
// and repeats only identical copies. Both equal `loopguard replay`.
import { describe, expect, it } from 'vitest';
import { collectDecisions, lg, lgOk, replayOf, waitFor, world, writeEvents } from './helpers/harness.js';
import { mixedTraffic } from './helpers/traffic.js';

// Kill points as fractions of the stream, fixed so a failure can be re-run as it was.
const KILL_AT = [0.09, 0.27, 0.48];

describe.each(['exactly_once', 'at_least_once'] as const)('%s under repeated SIGKILL', (guarantee) => {
  it('publishes every decision of a 50k-event stream, equal to replay', async () => {
    const w = world(`kill-${guarantee.replace(/_/g, '')}`, {}, 3, { processing: { guarantee } });
    const events = writeEvents(w.name, mixedTraffic(80, 220));
    const expected = await replayOf(w, events);
    await lgOk(['topics', 'create', '--config', w.configFile]);
    await lgOk(['produce', '--config', w.configFile, events]);
    const got = await collectDecisions(w);

    const killedAt: number[] = [];
    for (const fraction of KILL_AT) {
      const run = lg(['run', '--config', w.configFile]);
      await waitFor(`${Math.round(fraction * 100)}% of the decisions`, () => got.byId.size >= fraction * expected.size);
      run.child.kill('SIGKILL');
      await run.exited();
      killedAt.push(got.byId.size);
    }
    expect(killedAt.at(-1)!).toBeLessThan(expected.size);
    lg(['run', '--config', w.configFile]);
    await waitFor(`all ${expected.size} decisions`, () => got.byId.size >= expected.size);

    expect(got.byId.size).toBe(expected.size);
    for (const [id, d] of expected) expect(got.byId.get(id), id).toEqual(d);
    if (guarantee === 'exactly_once') expect(got.duplicates).toEqual([]);
    for (const { first, again } of got.duplicates) expect(again).toEqual(first);
  });
});
