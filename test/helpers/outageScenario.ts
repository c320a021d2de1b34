// The outage every integration goes through (test/outage.test.ts, test/outageNode24.test.ts):
// 1. Kafka and the registry are away when the clients start: 50 calls each, every one answered
//    by the failure policy within timeoutMs + 1 s;
// 2. Kafka back, the registry still away: still the policy, still in time;
// 3. both back: a decision from loopguard again within 30 s, and six identical calls made then
//    are all counted (the sixth is blocked at count 5: none of their calls or outcomes lost);
// 4. the broker stopped in the middle of a run: the run's next 50 calls by the policy, in time;
// 5. back again: 3. again.
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'vitest';
import type { FaultCommand } from './faultStack.js';
import { kindOf, type Kind, type Seen, type Subject } from './outageSubjects.js';

export const TIMEOUT_MS = 1_500;
/** What the issue allows a call while loopguard is away: its timeout and one second. */
const ANSWER_BOUND_MS = TIMEOUT_MS + 1_000;
const BACK_WITHIN_MS = 30_000;
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
 * outcomes). Resolves with how long after `backAt` loopguard first decided a call: the first
 * call that ran where the policy would have blocked it (failing closed), or that block.
 */
async function decidedAgain(s: Subject, tag: string, backAt: number): Promise<number> {
  let first: number | undefined;
  for (let g = 0; ; g++) {
    const seen = await s.run(Array<string>(6).fill(`${tag}-${g}`));
    const kinds = seen.map((x) => kindOf(x.text));
    first ??= seen.find((x, i) => kinds[i] === 'block' || (s.failure === 'closed' && kinds[i] === 'ran'))?.at;
    if (kinds[5] === 'block' && kinds.slice(0, 5).every((k) => k === 'ran')) {
      expect(seen[5]!.text, s.name).toContain('5 times');
      return (first ?? seen[5]!.at) - backAt;
    }
    if (Date.now() - backAt > 2 * BACK_WITHIN_MS)
      throw new Error(`${s.name}: no decision from loopguard ${2 * BACK_WITHIN_MS} ms after Kafka came back (last run: ${kinds.join(', ')})`);
    // Polled, as waitFor polls: calls answered at once by the policy settle in microtasks, and
    // a loop of them alone would never let the client's own timers and sockets run.
    await delay(200);
  }
}

export interface Outage {
  readonly fromStart: Seen[][];
  readonly registryAway: Seen[][];
  readonly mid: Seen[][];
  /** Per subject, ms from Kafka's (and the registry's) return to a decision, after each outage. */
  readonly back: ReadonlyArray<readonly [number, number]>;
}

/**
 * Stops Kafka and freezes the registry, makes the subjects (while both are away), and takes
 * them through the outage above, asserting each step.
 */
export async function throughAnOutage(stack: (cmd: FaultCommand) => Promise<void>, start: () => Promise<Subject[]>): Promise<Outage> {
  await stack('stop-kafka');
  await stack('freeze-registry');
  const subjects = await start();
  const each = <T>(f: (s: Subject) => Promise<T>) => Promise.all(subjects.map(f));

  // 1. Both away from the start: two runs of 25 calls each.
  const fromStart = await each(async (s) => [...(await s.run(paths('start-a', 25))), ...(await s.run(paths('start-b', 25)))]);
  subjects.forEach((s, i) => expectPolicyInTime(s, fromStart[i]!, 50));

  // 2. Kafka back, the registry still away (its schemas cannot be registered).
  await stack('start-kafka');
  const registryAway = await each((s) => s.run(paths('registry-away', 10)));
  subjects.forEach((s, i) => expectPolicyInTime(s, registryAway[i]!, 10));

  // 3. Both back.
  await stack('thaw-registry');
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
  await stack('stop-kafka');
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
  await stack('start-kafka');
  const againAt = Date.now();
  const secondBack = await each((s) => decidedAgain(s, 'back-2', againAt));
  subjects.forEach((s, i) => expect(secondBack[i], `${s.name}: ms from Kafka's return to a decision`).toBeLessThanOrEqual(BACK_WITHIN_MS));
  // What the CI log keeps of it: how long each integration waited for loopguard's return.
  process.stderr.write(`outage: ms from return to a decision by loopguard, per integration: ${subjects.map((s, i) => `${s.name} ${firstBack[i]}/${secondBack[i]}`).join('; ')}\n`);
  return { fromStart, registryAway, mid, back: subjects.map((_, i) => [firstBack[i]!, secondBack[i]!] as const) };
}
