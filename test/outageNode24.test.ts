// The outage of test/outage.test.ts (helpers/outageScenario.ts) for the hosts that need Node 24:
// Mastra, running the README's example in a Node 24 child process. Their clients run on kafkajs
// whatever LOOPGUARD_TEST_KAFKA_CLIENT says (the librdkafka addon is built for the Node that
// installed it, 20), so CI runs this file once. kafkajs on Node 24 warns of no negative timeout.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { installMastra } from './frameworks/mastraHost.js';
import { planFaults, startFaultStack, type FaultCommand, type FaultStack } from './helpers/faultStack.js';
import { clientOptions, infraEnv, lg, lgOk, ready, useInfra, world, type Run, type World } from './helpers/harness.js';
import { throughAnOutage, TIMEOUT_MS } from './helpers/outageScenario.js';
import { mastraSubject, type Subject } from './helpers/outageSubjects.js';

const plan = planFaults(inject('infraKind'), infraEnv());
const dir = mkdtempSync(join(tmpdir(), 'loopguard-outage24-'));

describe(`loopguard unreachable, then back, for the Node 24 hosts (${plan.kind === 'shared' ? 'the shared jar stack' : 'a private jar stack'})`, () => {
  let faults: FaultStack | undefined;
  let w: World;
  let processor: Run;
  const subjects: Subject[] = [];
  const down = new Set<FaultCommand>();
  const stack = (cmd: FaultCommand) => {
    faults!.inject(cmd);
    if (cmd === 'stop-kafka' || cmd === 'freeze-registry') down.add(cmd);
    if (cmd === 'start-kafka') down.delete('stop-kafka');
    if (cmd === 'thaw-registry') down.delete('freeze-registry');
  };

  beforeAll(async () => {
    installMastra();
    faults = startFaultStack(plan);
    useInfra(faults.env);
    w = world('outage24', { tools: { loopDetection: { enabled: true, warningThreshold: 3, criticalThreshold: 5 } } });
    await lgOk(['topics', 'create', '--config', w.configFile]);
    processor = lg(['run', '--config', w.configFile]);
    await ready(processor);
  }, 600_000);

  afterAll(async () => {
    for (const s of subjects) await s.close().catch(() => undefined);
    if (down.has('freeze-registry')) stack('thaw-registry');
    if (down.has('stop-kafka')) stack('start-kafka');
    useInfra(undefined);
    faults?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every call by the failure policy in time while Kafka or the registry is away, and is decided by loopguard again within 30 s of their return', async () => {
    let mastra: Awaited<ReturnType<typeof mastraSubject>> | undefined;
    await throughAnOutage(stack, async () => {
      mastra = await mastraSubject({ ...clientOptions(w, 'closed', TIMEOUT_MS), kafkaClient: 'kafkajs' }, join(dir, 'mastra.json'));
      subjects.push(mastra);
      return subjects;
    });
    expect(mastra!.output()).not.toContain('TimeoutNegativeWarning');
    expect(processor.child.exitCode).toBeNull();
  }, 600_000);
});
