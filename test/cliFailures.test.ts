// The CLI when things are wrong around it: a `run` that cannot start ends at once with one
// line, credentials stay out of its logs, and `tail` reads past a record that is not a decision.
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { decisionCodec } from '../schemas/codecs.js';
import { COMPATIBILITY } from '../schemas/registry.js';
import { lg, lgOk, replayOf, session, world, writeEvents, type Run } from './helpers/harness.js';
import { mixedTraffic } from './helpers/traffic.js';

/** Resolves to the child's exit code, or 'still running' once `ms` have passed. */
const exitWithin = (run: Run, ms: number) => Promise.race([run.exited(), delay(ms).then(() => 'still running' as const)]);
const loopguardLines = (out: string) => out.split('\n').filter((l) => l.startsWith('loopguard: '));

describe('a run that cannot start', () => {
  it('exits 1 with one line when its topics are missing, listening on 127.0.0.1 by default', async () => {
    const w = world('no-topics', {}, 3, { http: { port: 0 } });
    const run = lg(['run', '--config', w.configFile]);
    expect(await exitWithin(run, 30_000)).toBe(1);
    expect(loopguardLines(run.output())).toEqual([expect.stringMatching(/^loopguard: missing topics: .*loopguard topics create/)]);
    expect(run.output()).not.toMatch(/\n\s+at /);
    expect(run.output()).toMatch(/"host":"127\.0\.0\.1","msg":"serving/);
  });

  it('exits 1 with one line when no broker answers', async () => {
    const w = world('no-broker');
    const run = lg(['run', '--config', w.configFile], { KAFKA_BROKERS: '127.0.0.1:1' });
    expect(await exitWithin(run, 120_000)).toBe(1);
    expect(loopguardLines(run.output())).toEqual([expect.stringMatching(/^loopguard: cannot connect to Kafka at 127\.0\.0\.1:1: /)]);
    expect(run.output()).not.toMatch(/\n\s+at /);
  });
});

describe('registry credentials', () => {
  it('are masked in what run logs and prints', async () => {
    const w = world('secret', {}, 3, { schemaRegistry: { startupAttempts: 2 } });
    const run = lg(['run', '--config', w.configFile], { SCHEMA_REGISTRY_URL: 'http://loopguard:s3cret-pw@127.0.0.1:9/apis/ccompat/v7' });
    expect(await exitWithin(run, 60_000)).toBe(1);
    expect(run.output()).toContain('http://***@127.0.0.1:9/apis/ccompat/v7');
    expect(run.output()).toMatch(/^loopguard: schema registry at http:\/\/\*\*\*@127\.0\.0\.1:9\S* did not accept our schemas after 2 attempts/m);
    expect(run.output()).not.toContain('s3cret-pw');
  });
});

describe('loopguard tail', () => {
  it('skips a record that is not a decision with a warning and prints the decisions after it', async () => {
    const w = world('tail-garbage');
    await lgOk(['topics', 'create', '--config', w.configFile]);
    const decisions = [...(await replayOf(w, writeEvents(w.name, mixedTraffic(1, 2)))).values()].slice(0, 3);
    const { kafka, catalog } = session(w);
    const topic = w.config.topics.verdicts;
    await catalog.register(topic, decisionCodec, COMPATIBILITY.FULL_TRANSITIVE);
    const records = [Buffer.from('not a decision'), ...decisions.map((d) => catalog.encode(topic, decisionCodec, d as never))];
    await (await kafka.producer()).send(records.map((value) => ({ topic, partition: 0, key: 'k', value })));

    const tail = lg(['tail', '--config', w.configFile, '--json', '--from-beginning', '--max', '3', '--timeout', '60']);
    expect(await tail.exited()).toBe(0);
    const printed = tail
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{"type"'))
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(printed).toEqual(decisions.map((d) => d.id));
    expect(tail.output()).toMatch(/"offset":0,"reason":"bad_magic_byte".*"msg":"undecodable decision skipped"/);
  });
});
