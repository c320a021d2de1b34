// The outage of test/outage.test.ts (helpers/outageScenario.ts) for the hosts that need Node 24:
// a real OpenClaw gateway with the plugin (turns driven by the scripted model) and Mastra
// running the README's example in a Node 24 child process. Their clients run on kafkajs whatever
// LOOPGUARD_TEST_KAFKA_CLIENT says (the librdkafka addon is built for the Node that installed
// it, 20), so CI runs this file once. kafkajs on Node 24 warns of no negative timeout.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { installMastra } from './frameworks/mastraHost.js';
import { planFaults, startFaultStack, type FaultCommand, type FaultStack } from './helpers/faultStack.js';
import { clientOptions, infraEnv, lg, lgOk, ready, useInfra, world, type Run, type World } from './helpers/harness.js';
import { gateway, installOpenClaw, startGateway, turn, type RunningGateway } from './helpers/openclaw.js';
import { openClawSubject } from './helpers/outageOpenClaw.js';
import { throughAnOutage, TIMEOUT_MS } from './helpers/outageScenario.js';
import { mastraSubject, type Subject } from './helpers/outageSubjects.js';
import { startScriptedModel, type ScriptedModel } from './helpers/scriptedModel.mjs';

const plan = planFaults(inject('infraKind'), infraEnv());
const dir = mkdtempSync(join(tmpdir(), 'loopguard-outage24-'));
const TURN_MS = 240_000;

describe(`loopguard unreachable, then back, for the Node 24 hosts (${plan.kind === 'shared' ? 'the shared jar stack' : 'a private jar stack'})`, () => {
  let faults: FaultStack | undefined;
  let w: World;
  let processor: Run;
  let model: ScriptedModel;
  let openclaw: RunningGateway;
  const subjects: Subject[] = [];
  const down = new Set<FaultCommand>();
  // A fault already in place is not injected again: the gateway starts with both away.
  const stack = async (cmd: FaultCommand) => {
    if ((cmd === 'stop-kafka' || cmd === 'freeze-registry') && down.has(cmd)) return;
    await faults!.inject(cmd);
    if (cmd === 'stop-kafka' || cmd === 'freeze-registry') down.add(cmd);
    if (cmd === 'start-kafka') down.delete('stop-kafka');
    if (cmd === 'thaw-registry') down.delete('freeze-registry');
  };

  beforeAll(async () => {
    installMastra();
    installOpenClaw();
    faults = startFaultStack(plan);
    useInfra(faults.env);
    w = world('outage24', { tools: { loopDetection: { enabled: true, warningThreshold: 3, criticalThreshold: 5 } } });
    await lgOk(['topics', 'create', '--config', w.configFile]);
    processor = lg(['run', '--config', w.configFile]);
    model = await startScriptedModel();
    const home = await gateway('outage', {
      modelPort: model.port,
      loopguard: {
        brokers: infraEnv().KAFKA_BROKERS.split(','),
        schemaRegistryUrl: infraEnv().SCHEMA_REGISTRY_URL,
        failure: 'closed',
        timeoutMs: TIMEOUT_MS,
        topics: w.config.topics,
      },
    });
    await ready(processor);
    // The plugin starts its clients as the gateway starts: with Kafka and the registry away
    // already, so none of its schemas is registered (and cached) before the outage begins.
    await stack('stop-kafka');
    await stack('freeze-registry');
    openclaw = await startGateway(home);
    // OpenClaw's first turn in a gateway takes a minute of its own (the agent set up once): a
    // turn without tool calls pays it, so the plugin's first call is still made with Kafka away.
    const warm = await turn(openclaw, 'outage-warm-up', 'Say hi. [[script:[]]]', TURN_MS);
    expect(warm, warm.text).toMatchObject({ status: 200, text: 'FINAL: saw 0 tool results.' });
  }, 600_000);

  afterAll(async () => {
    for (const s of subjects) await s.close().catch(() => undefined);
    await model?.close();
    if (down.has('freeze-registry')) await stack('thaw-registry');
    if (down.has('stop-kafka')) await stack('start-kafka');
    useInfra(undefined);
    faults?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every call by the failure policy in time while Kafka or the registry is away, and is decided by loopguard again within 30 s of their return', async () => {
    let mastra: Awaited<ReturnType<typeof mastraSubject>> | undefined;
    try {
      await throughAnOutage(stack, async () => {
        mastra = await mastraSubject({ ...clientOptions(w, 'closed', TIMEOUT_MS), kafkaClient: 'kafkajs' }, join(dir, 'mastra.json'));
        subjects.push(openClawSubject(openclaw, model, TURN_MS), mastra);
        return subjects;
      });
    } catch (e) {
      // What tells a slow loopguard from a starved host: the plugin's and the stall watch's
      // lines of the gateway, and Mastra's own lines (not its answers, one line per run).
      const said = (text: string, keep: (l: string) => boolean) => text.split('\n').filter(keep).slice(-40).join('\n');
      const gateway = said(openclaw.output(), (l) => /loopguard|stall-watch|liveness|model-fetch/.test(l));
      throw new Error(`${(e as Error).message}\n--- the gateway (loopguard, stalls)\n${gateway}\n--- Mastra\n${said(mastra?.output() ?? '', (l) => !l.startsWith('{"seen"'))}`, {
        cause: e,
      });
    }
    expect(mastra!.output()).not.toContain('TimeoutNegativeWarning');
    expect(openclaw.output()).not.toContain('TimeoutNegativeWarning');
    // The plugin said each outage once, and its end once; not once per call answered meanwhile.
    const said = openclaw.output().split('\n');
    expect(said.filter((l) => l.includes('loopguard is unreachable'))).toHaveLength(2);
    expect(said.filter((l) => l.includes('loopguard is reachable again'))).toHaveLength(2);
    // (A call loopguard was reachable for but did not decide in time, as it came back, may be said.)
    expect(said.filter((l) => l.includes('no decision in')).length).toBeLessThan(10);
    expect(processor.child.exitCode).toBeNull();
  }, 900_000);
});
