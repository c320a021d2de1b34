// Infrastructure faults, injected into a jar-based stack (the only kind whose processes a test
// can restart or freeze): broker restart mid-stream, registry down at start-up and during a
// run. When the shared infrastructure is not such a stack, the faults get a private one.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { toolEventCodec } from '../schemas/codecs.js';
import { COMPATIBILITY } from '../schemas/registry.js';
import { partitionFor } from '../topology/partitioner.js';
import { planFaults, startFaultStack, type FaultStack } from './helpers/faultStack.js';
import { collectDecisions, infraEnv, lg, lgOk, ready, replayOf, session, useInfra, waitFor, world, writeEvents, type Run } from './helpers/harness.js';
import { mixedTraffic } from './helpers/traffic.js';

// Throws, failing the file, when there is no stack these tests may hurt: they never skip.
const plan = planFaults(inject('infraKind'), infraEnv());

describe(`faults (on ${plan.kind === 'shared' ? 'the shared jar stack' : 'a private jar stack'})`, () => {
  let faults: FaultStack | undefined;
  const stack = (cmd: Parameters<FaultStack['inject']>[0]) => faults!.inject(cmd);
  beforeAll(() => {
    faults = startFaultStack(plan);
    useInfra(faults.env);
  }, 600_000);
  afterAll(() => {
    useInfra(undefined);
    faults?.stop();
  });

  it('completes the stream with nothing missing when the broker restarts mid-stream', async () => {
    const w = world('broker-restart');
    const events = writeEvents(w.name, mixedTraffic(40, 100));
    const expected = await replayOf(w, events);
    await lgOk(['topics', 'create', '--config', w.configFile]);
    await lgOk(['produce', '--config', w.configFile, events]);
    const got = await collectDecisions(w);
    lg(['run', '--config', w.configFile]);
    await waitFor('a third of the decisions', () => got.byId.size >= expected.size / 3);
    await stack('restart-kafka');
    await waitFor(`all ${expected.size} decisions`, () => got.byId.size >= expected.size, 180_000);
    for (const [id, d] of expected) expect(got.byId.get(id), id).toEqual(d);
    for (const { first, again } of got.duplicates) expect(again).toEqual(first);
  });

  it('keeps deciding from cached schemas while the registry is down', async () => {
    const w = world('registry-down');
    await lgOk(['topics', 'create', '--config', w.configFile]);
    const { kafka, catalog } = session(w);
    const topic = w.config.topics.toolEvents;
    await catalog.register(topic, toolEventCodec, COMPATIBILITY.FULL_TRANSITIVE);
    const sender = await kafka.producer();
    const send = (from: number, n: number) =>
      sender.send(
        Array.from({ length: n }, (_, i) => {
          const e = { type: 'tool_call', ts: from + i, runId: `r${i % 3}`, toolName: 'read', args: { i: from + i } };
          return { topic, partition: partitionFor(e.runId, 3), key: e.runId, value: catalog.encode(topic, toolEventCodec, e) };
        }),
      );
    const got = await collectDecisions(w);
    const run = lg(['run', '--config', w.configFile]);
    await send(0, 10);
    await waitFor('decisions with the registry up', () => got.byId.size >= 10);
    await stack('freeze-registry');
    try {
      await send(100, 10);
      await waitFor('decisions with the registry down', () => got.byId.size >= 20);
    } finally {
      await stack('thaw-registry');
    }
    expect(run.child.exitCode).toBeNull();
  });

  it('retries a registry that is down at start-up, then runs once it answers', async () => {
    const w = world('registry-late', {}, 3, { schemaRegistry: { startupAttempts: 20 } });
    await lgOk(['topics', 'create', '--config', w.configFile]);
    await stack('freeze-registry');
    let run: Run | undefined;
    try {
      run = lg(['run', '--config', w.configFile]);
      await waitFor('a logged retry', () => run!.output().includes('schema registry not ready; retrying'));
    } finally {
      await stack('thaw-registry');
    }
    await ready(run!);
  });
});

// A registry that never answers at all: test/cliFailures.test.ts ('registry credentials').

describe('poison configuration', () => {
  it('refuses to start, naming the key', async () => {
    const file = writeEvents('poison-config', []).replace(/\.jsonl$/, '.json5');
    writeFileSync(file, '{ tools: { loopDetection: { enabled: true, criticalThreshold: 0 } } }');
    const run = lg(['run', '--config', file]);
    expect(await run.exited()).toBe(1);
    expect(run.output()).toContain('tools.loopDetection.criticalThreshold');
  });
});
