// The guard never becomes the outage: every integration that runs on this Node (the SDK, the
// MCP proxy failing open and failing closed, the AI SDK, OpenAI Agents and LangChain adapters,
// each driven by its own host) goes through one broker outage together, on a jar stack whose
// broker the test stops and starts and whose registry it freezes:
// 1. Kafka and the registry are away when the clients start: 50 calls each, every one answered
//    by the failure policy within timeoutMs + 1 s;
// 2. Kafka back, the registry still away: still the policy, still in time;
// 3. both back: a decision from loopguard again within 30 s, and six identical calls made then
//    are all counted (the sixth is blocked at count 5: none of their calls or outcomes lost);
// 4. the broker stopped in the middle of a run: the run's next 50 calls by the policy, in time;
// 5. back again: 3. again. The processor (`loopguard run`) runs throughout.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LoopguardRunner } from '../sdk/index.js';
import { planFaults, startFaultStack, type FaultCommand, type FaultStack } from './helpers/faultStack.js';
import { clientOptions, infraEnv, lg, lgOk, ready, testKafkaClient, useInfra, world, type Run, type World } from './helpers/harness.js';
import { aiSdkSubject, kindOf, langchainSubject, mcpSubject, openAiAgentsSubject, sdkSubject, type Kind, type Seen, type Subject } from './helpers/outageSubjects.js';

const plan = planFaults(inject('infraKind'), infraEnv());
const TIMEOUT_MS = 1_500;
/** What the issue allows a call while loopguard is away: its timeout and one second. */
const ANSWER_BOUND_MS = TIMEOUT_MS + 1_000;
const BACK_WITHIN_MS = 30_000;
const dir = mkdtempSync(join(tmpdir(), 'loopguard-outage-'));

const paths = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag}-${i}`);
const p99 = (ms: readonly number[]) => [...ms].sort((a, b) => a - b)[Math.ceil(ms.length * 0.99) - 1]!;

/** What a call answered by the policy looks like to the host: denied with the policy's message, or run. */
const policyKind = (s: Subject): Kind => (s.failure === 'closed' ? 'policy' : 'ran');

function expectPolicyInTime(s: Subject, seen: readonly Seen[], atLeast: number): void {
  expect(seen.length, s.name).toBeGreaterThanOrEqual(atLeast);
  expect(
    seen.map((x) => kindOf(x.text)),
    s.name,
  ).toEqual(seen.map(() => policyKind(s)));
  expect(p99(seen.map((x) => x.ms)), `${s.name}: p99 of ${seen.length} calls`).toBeLessThanOrEqual(ANSWER_BOUND_MS);
}

/**
 * Runs of six identical calls, each run on a new path, until one is decided by loopguard
 * throughout: five run, the sixth blocked at count 5 (so loopguard got all five calls and
 * outcomes). Resolves with how long after `backAt` that block came.
 */
async function decidedAgain(s: Subject, tag: string, backAt: number): Promise<number> {
  for (let g = 0; ; g++) {
    const seen = await s.run(Array<string>(6).fill(`${tag}-${g}`));
    const kinds = seen.map((x) => kindOf(x.text));
    if (kinds[5] === 'block' && kinds.slice(0, 5).every((k) => k === 'ran')) {
      expect(seen[5]!.text, s.name).toContain('5 times');
      return seen[5]!.at - backAt;
    }
    if (Date.now() - backAt > 2 * BACK_WITHIN_MS)
      throw new Error(`${s.name}: no decision from loopguard ${2 * BACK_WITHIN_MS} ms after Kafka came back (last run: ${kinds.join(', ')})`);
    // Polled, as waitFor polls: calls answered at once by the policy settle in microtasks, and
    // a loop of them alone would never let the client's own timers and sockets run.
    await delay(200);
  }
}

describe(`loopguard unreachable, then back (${plan.kind === 'shared' ? 'the shared jar stack' : 'a private jar stack'})`, () => {
  let faults: FaultStack | undefined;
  let w: World;
  let processor: Run;
  const subjects: Subject[] = [];
  // The stack is left whole whatever happens: a later test file may use it.
  const down = new Set<FaultCommand>();
  const stack = (cmd: FaultCommand) => {
    faults!.inject(cmd);
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
    if (down.has('freeze-registry')) stack('thaw-registry');
    if (down.has('stop-kafka')) stack('start-kafka');
    useInfra(undefined);
    faults?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every call by the failure policy in time while Kafka or the registry is away, and is decided by loopguard again within 30 s of their return', async () => {
    stack('stop-kafka');
    stack('freeze-registry');

    // Every client starts with both away.
    const options = (failure: 'open' | 'closed') => ({ ...clientOptions(w, failure, TIMEOUT_MS), kafkaClient: testKafkaClient() });
    const connected = async (failure: 'open' | 'closed') => LoopguardRunner.connect(options(failure));
    const mcpEnv = infraEnv() as unknown as Record<string, string>;
    const counted = { closed: join(dir, 'closed.txt'), open: join(dir, 'open.txt') };
    const mcpClosed = await mcpSubject(w.configFile, mcpEnv, 'closed', TIMEOUT_MS, counted.closed);
    const mcpOpen = await mcpSubject(w.configFile, mcpEnv, 'open', TIMEOUT_MS, counted.open);
    subjects.push(
      sdkSubject(options('closed'), await connected('closed')),
      mcpClosed,
      mcpOpen,
      aiSdkSubject(options('closed'), await connected('closed')),
      openAiAgentsSubject(options('closed'), await connected('closed')),
      langchainSubject(options('closed'), await connected('closed')),
    );
    const each = <T>(f: (s: Subject) => Promise<T>) => Promise.all(subjects.map(f));

    // 1. Both away from the start: two runs of 25 calls each.
    const fromStart = await each(async (s) => [...(await s.run(paths('start-a', 25))), ...(await s.run(paths('start-b', 25)))]);
    subjects.forEach((s, i) => expectPolicyInTime(s, fromStart[i]!, 50));

    // 2. Kafka back, the registry still away (its schemas cannot be registered).
    stack('start-kafka');
    const registryAway = await each((s) => s.run(paths('registry-away', 10)));
    subjects.forEach((s, i) => expectPolicyInTime(s, registryAway[i]!, 10));

    // 3. Both back.
    stack('thaw-registry');
    const backAt = Date.now();
    const firstBack = await each((s) => decidedAgain(s, 'back-1', backAt));
    subjects.forEach((s, i) => expect(firstBack[i], `${s.name}: ms from Kafka's return to a decision`).toBeLessThanOrEqual(BACK_WITHIN_MS));

    // 4. The broker stopped in the middle of a run: five calls decided, then 25 in the same
    //    run and 25 in the next, by the policy.
    let reached = 0;
    let allPaused!: () => void;
    const paused = new Promise<void>((resolve) => (allPaused = resolve));
    let release!: () => void;
    const stopped = new Promise<void>((resolve) => (release = resolve));
    const pause = { at: 5, reached: () => void (++reached === subjects.length && allPaused()), until: stopped };
    const midRun = each(async (s) => [...(await s.run(paths('mid-a', 30), pause)), ...(await s.run(paths('mid-b', 25)))]);
    await paused;
    stack('stop-kafka');
    release();
    const mid = await midRun;
    subjects.forEach((s, i) => {
      expect(
        mid[i]!.slice(0, 5).map((x) => kindOf(x.text)),
        `${s.name}: before the stop`,
      ).toEqual(Array(5).fill('ran'));
      expectPolicyInTime(s, mid[i]!.slice(5), 50);
    });

    // 5. Back again.
    stack('start-kafka');
    const againAt = Date.now();
    const secondBack = await each((s) => decidedAgain(s, 'back-2', againAt));
    subjects.forEach((s, i) => expect(secondBack[i], `${s.name}: ms from Kafka's return to a decision`).toBeLessThanOrEqual(BACK_WITHIN_MS));
    // What the CI log keeps of it: how long each integration waited for loopguard's return.
    process.stderr.write(
      `outage: ms from return to a decision by loopguard, per integration: ${subjects.map((s, i) => `${s.name} ${firstBack[i]}/${secondBack[i]}`).join('; ')}\n`,
    );

    // The proxies served throughout and still do; each said the outage once and its end once.
    for (const proxy of [mcpClosed, mcpOpen]) {
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
    // The open proxy's server ran every call made through it but loopguard's blocks; the closed one's none while loopguard was away.
    const reads = (file: string) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l === 'read').length;
    const ranThrough = (seen: Seen[][]) => seen.flat().filter((x) => kindOf(x.text) === 'ran').length;
    const o = subjects.indexOf(mcpOpen);
    expect(reads(counted.open)).toBeGreaterThanOrEqual(ranThrough([fromStart[o]!, registryAway[o]!, mid[o]!]));
    expect(processor.child.exitCode).toBeNull();
  }, 600_000);
});
