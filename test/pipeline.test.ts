// The Kafka runtime gives exactly the decisions `loopguard replay` gives for the same input.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { collectDecisions, lg, lgOk, replayOf, session, waitFor, world, writeEvents } from './helpers/harness.js';
import { mixedTraffic } from './helpers/traffic.js';

describe('produce → run → decisions', () => {
  it('publishes on the control topic exactly the decisions replay gives for the same file', async () => {
    const w = world('pipeline', { agents: { list: [{ id: 'strict', tools: { loopDetection: { enabled: true, warningThreshold: 3, criticalThreshold: 6 } } }] } });
    const events = writeEvents(w.name, mixedTraffic(24, 30));
    const expected = await replayOf(w, events);
    expect(expected.size).toBeGreaterThan(700);
    expect([...expected.values()].some((d) => d.decision === 'block')).toBe(true);
    expect([...expected.values()].some((d) => d.type === 'run_abort')).toBe(true);
    expect([...expected.values()].some((d) => d.decision === 'suppress')).toBe(true);

    await lgOk(['topics', 'create', '--config', w.configFile]);
    await lgOk(['produce', '--config', w.configFile, events]);
    const run = lg(['run', '--config', w.configFile]);
    const got = await collectDecisions(w);
    await waitFor(`${expected.size} decisions`, () => got.byId.size >= expected.size);

    expect(new Set(got.byId.keys())).toEqual(new Set(expected.keys()));
    for (const [id, d] of expected) expect(got.byId.get(id), id).toEqual(d);
    for (const { first, again } of got.duplicates) expect(again).toEqual(first);

    run.child.kill('SIGTERM');
    expect(await run.exited()).toBe(0);
    expect(run.output()).toContain('stopped');

    // The record cache: a batch writes each key's newest state once, not one state per record.
    // The whole input was waiting when the run began, so its batches are large.
    const { kafka } = session(w);
    let changelogRecords = 0;
    for (const store of ['tool-loop-runs', 'bot-loop-conversations'])
      changelogRecords += await kafka.readToEnd(`${w.config.topics.changelogPrefix}${store}-changelog`, [0, 1, 2], () => undefined);
    const inputs = readFileSync(events, 'utf8').trim().split('\n').length;
    expect(changelogRecords).toBeGreaterThan(0);
    expect(changelogRecords).toBeLessThan(inputs / 4);
  });

  it('prints decisions with `loopguard tail`', async () => {
    const w = world('tail');
    const events = writeEvents(w.name, mixedTraffic(4, 12));
    const expected = await replayOf(w, events);
    await lgOk(['topics', 'create', '--config', w.configFile]);
    await lgOk(['produce', '--config', w.configFile, events]);
    lg(['run', '--config', w.configFile]);
    const out = await lgOk(['tail', '--config', w.configFile, '--json', '--from-beginning', '--max', String(expected.size), '--timeout', '60']);
    const tailed = out
      .split('\n')
      .filter((l) => l.startsWith('{"id"') || l.startsWith('{"type"'))
      .map((l) => JSON.parse(l) as { id: string });
    expect(tailed).toHaveLength(expected.size);
    expect(new Set(tailed.map((d) => d.id))).toEqual(new Set(expected.keys()));
    const readable = await lgOk(['tail', '--config', w.configFile, '--from-beginning', '--max', '3', '--timeout', '60']);
    expect(readable).toMatch(/(ALLOW|WARN|BLOCK|DELIVER|SUPPRESS)/);
  });
});
