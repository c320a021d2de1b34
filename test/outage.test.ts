// The guard never becomes the outage: every integration that runs on this Node (the SDK, the
// MCP proxy failing open and failing closed, the AI SDK, OpenAI Agents and LangChain adapters,
// each driven by its own host) goes through one broker outage together
// (helpers/outageScenario.ts), on a jar stack whose broker the test stops and starts and whose
// registry it freezes, with `loopguard run` running throughout. The Node 24 hosts (OpenClaw,
// Mastra) have their own file: test/outageNode24.test.ts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LoopguardRunner } from '../sdk/index.js';
import { planFaults, startFaultStack, type FaultCommand, type FaultStack } from './helpers/faultStack.js';
import { clientOptions, infraEnv, lg, lgOk, ready, testKafkaClient, useInfra, world, type Run, type World } from './helpers/harness.js';
import { throughAnOutage, TIMEOUT_MS } from './helpers/outageScenario.js';
import { aiSdkSubject, kindOf, langchainSubject, mcpSubject, openAiAgentsSubject, sdkSubject, type Seen, type Subject } from './helpers/outageSubjects.js';

const plan = planFaults(inject('infraKind'), infraEnv());
const dir = mkdtempSync(join(tmpdir(), 'loopguard-outage-'));

describe(`loopguard unreachable, then back (${plan.kind === 'shared' ? 'the shared jar stack' : 'a private jar stack'})`, () => {
  let faults: FaultStack | undefined;
  let w: World;
  let processor: Run;
  const subjects: Subject[] = [];
  // The stack is left whole whatever happens: a later test file may use it.
  const down = new Set<FaultCommand>();
  const stack = async (cmd: FaultCommand) => {
    await faults!.inject(cmd);
    if (cmd === 'stop-kafka' || cmd === 'freeze-registry') down.add(cmd);
    if (cmd === 'start-kafka') down.delete('stop-kafka');
    if (cmd === 'thaw-registry') down.delete('freeze-registry');
  };

  beforeAll(async () => {
    faults = startFaultStack(plan);
    useInfra(faults.env);
    w = world('outage', { tools: { loopDetection: { enabled: true, warningThreshold: 3, criticalThreshold: 5 } } });
    await lgOk(['topics', 'create', '--config', w.configFile]);
    processor = lg(['run', '--config', w.configFile]);
    await ready(processor);
  }, 600_000);

  afterAll(async () => {
    for (const s of subjects) await s.close().catch(() => undefined);
    if (down.has('freeze-registry')) await stack('thaw-registry');
    if (down.has('stop-kafka')) await stack('start-kafka');
    useInfra(undefined);
    faults?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every call by the failure policy in time while Kafka or the registry is away, and is decided by loopguard again within 30 s of their return', async () => {
    const counted = { closed: join(dir, 'closed.txt'), open: join(dir, 'open.txt') };
    let mcp: Array<Awaited<ReturnType<typeof mcpSubject>>> = [];
    // Every client starts with Kafka and the registry away.
    const outage = await throughAnOutage(stack, async () => {
      const options = (failure: 'open' | 'closed') => ({ ...clientOptions(w, failure, TIMEOUT_MS), kafkaClient: testKafkaClient() });
      const connected = async (failure: 'open' | 'closed') => LoopguardRunner.connect(options(failure));
      const env = infraEnv() as unknown as Record<string, string>;
      mcp = [await mcpSubject(w.configFile, env, 'closed', TIMEOUT_MS, counted.closed), await mcpSubject(w.configFile, env, 'open', TIMEOUT_MS, counted.open)];
      subjects.push(
        sdkSubject(options('closed'), await connected('closed')),
        ...mcp,
        aiSdkSubject(options('closed'), await connected('closed')),
        openAiAgentsSubject(options('closed'), await connected('closed')),
        langchainSubject(options('closed'), await connected('closed')),
      );
      return subjects;
    });

    // The proxies served throughout and still do; each said the outage once and its end once.
    for (const proxy of mcp) {
      expect(() => process.kill(proxy.pid, 0), proxy.name).not.toThrow();
      expect((await proxy.client.listTools()).tools.map((t) => t.name)).toContain('read');
      const lines = proxy.stderr().split('\n');
      expect(
        lines.filter((l) => l.includes('loopguard is unreachable')),
        proxy.name,
      ).toHaveLength(2);
      expect(
        lines.filter((l) => l.includes('loopguard is reachable again')),
        proxy.name,
      ).toHaveLength(2);
    }
    // The open proxy's server ran every call made through it while loopguard was away.
    const reads = (file: string) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l === 'read').length;
    const ran = (seen: Seen[]) => seen.filter((x) => kindOf(x.text) === 'ran').length;
    const o = subjects.indexOf(mcp[1]!);
    expect(reads(counted.open)).toBeGreaterThanOrEqual(ran(outage.fromStart[o]!) + ran(outage.registryAway[o]!) + ran(outage.mid[o]!));
    expect(processor.child.exitCode).toBeNull();
  }, 600_000);
});
