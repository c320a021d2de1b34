// The openclaw profile's detectors (docs/behaviour.md §6), over the run's records as the call
// sees them. Vetoes (calls blocked for a loop, the host's or ours) are records too: they count
// in the no-progress streak of their tool and arguments, end an unknown-tool streak, and keep a
// ping-pong alternation going without being evidence for it. While a turn is being decided,
// its earlier calls, still without outcomes, count as vetoes (the host projects them so).
import type { ResolvedLoopDetection } from '../config.js';
import { isKnownPoll } from '../detect.js';
import { argsKeyOf, DETECTORS, evidenceOf, hasArgs, type Detector, type Evidence } from '../state.js';
import type { History, ProfileRecord } from './records.js';

export interface ProfileCall {
  readonly toolName: string;
  readonly argsHash: string;
  readonly action: string | undefined;
  readonly poll?: boolean | undefined;
  /** The call's turn: its earlier calls without outcomes are projected vetoes. */
  readonly turnId: string | undefined;
}

export interface ProfileFinding {
  readonly decision: 'warn' | 'block';
  readonly detector: Detector;
  readonly count: number;
  readonly pairedToolName?: string | undefined;
  /** The host's warning key, for its notification buckets. */
  readonly warningKey: string;
  readonly evidence: Evidence | undefined;
}

/** Counting context: the turn whose pending calls count as vetoes. */
const isVeto = (r: ProfileRecord, turnId: string | undefined): boolean =>
  r.kind === 'veto' || (turnId !== undefined && r.turnId === turnId && r.resultHash === undefined && r.kind === undefined);
const hasResult = (r: ProfileRecord): boolean => r.resultHash !== undefined && r.resultHash !== '';

interface Streak {
  readonly count: number;
  /** The newest outcome the streak compared with. */
  readonly latest: string | undefined;
  /** The records counted, newest first (when asked for). */
  readonly records: ProfileRecord[] | undefined;
}

/**
 * The no-progress streak of a tool and its arguments: newest to oldest over the records of
 * that tool and arguments (others are skipped), vetoes waiting for the next outcome, outcomes
 * equal to the newest one counting with the vetoes before them, the first different one ending
 * it. Vetoes with no outcome behind them count alone.
 *
 * `failures`: the exec variant. An unbroken tail of records of the tool (another tool ends it)
 * that are vetoes or failures that ended the command, whatever their arguments: each failure
 * must equal the newest or fail the same way (its masked identity); once the arguments differed
 * from the current ones, the current ones again end it.
 */
function streakOf(h: History, toolName: string, argsKey: number, argsHash: string, turnId: string | undefined, failures: boolean, collect: boolean): Streak {
  let count = 0;
  let latest: ProfileRecord | undefined;
  let crossed = false;
  let pending = 0;
  const records: ProfileRecord[] | undefined = collect ? [] : undefined;
  const held: ProfileRecord[] | undefined = collect ? [] : undefined;
  for (let i = h.length - 1; i >= 0; i--) {
    const r = h[i]!;
    if (r.toolName !== toolName) {
      if (failures) break;
      continue;
    }
    const same = hasArgs(r, argsKey, argsHash);
    if (!failures && !same) continue;
    if (isVeto(r, turnId)) {
      pending++;
      held?.push(r);
      continue;
    }
    if (!hasResult(r)) continue;
    if (failures && r.kind !== 'terminal-exec-failure') break;
    if (latest === undefined) {
      latest = r;
      crossed = !same;
    } else {
      if (failures) {
        if (crossed && same) break;
        if (!same) crossed = true;
      }
      const sameFailure = failures && r.failureIdentityHash !== undefined && r.failureIdentityHash === latest.failureIdentityHash;
      if (r.resultHash !== latest.resultHash && !sameFailure) break;
    }
    count += pending + 1;
    pending = 0;
    if (records !== undefined) {
      records.push(...held!, r);
      held!.length = 0;
    }
  }
  if (latest !== undefined) return { count, latest: latest.resultHash, records };
  if (failures) return { count: 0, latest: undefined, records: collect ? [] : undefined };
  return { count: pending, latest: undefined, records: held };
}

/** For exec, the larger of the two streaks (the plain one on a tie). */
function noProgress(h: History, call: ProfileCall, argsKey: number, collect = false): Streak {
  const plain = streakOf(h, call.toolName, argsKey, call.argsHash, call.turnId, false, collect);
  if (call.toolName !== 'exec') return plain;
  const failures = streakOf(h, call.toolName, argsKey, call.argsHash, call.turnId, true, collect);
  return failures.count > plain.count ? failures : plain;
}

/** The newest records while they are calls of this tool that found the same missing tool. */
function unknownStreak(h: History, toolName: string): number {
  let n = 0;
  let name: string | undefined;
  for (let i = h.length - 1; i >= 0; i--) {
    const r = h[i]!;
    if (r.toolName !== toolName || !r.unknownToolName) break;
    if (name === undefined) name = r.unknownToolName;
    else if (r.unknownToolName !== name) break;
    n++;
  }
  return n;
}

interface Churn {
  readonly count: number;
  readonly variants: number;
  readonly records: ProfileRecord[];
}

const NO_CHURN: Churn = { count: 0, variants: 0, records: [] };
/** Calls an argument set needs, with one outcome, to count as a variant of the churn. */
const STABLE_CALLS = 3;

/**
 * Argument churn: from the newest record back while they are calls of this tool (calls without
 * outcomes skipped) whose outcomes made no progress and each argument set kept one outcome. It
 * counts when at least two argument sets were each called at least three times, all of them
 * with one and the same outcome, none called fewer times, and the current arguments are one of
 * them.
 */
function churnOf(h: History, toolName: string, argsHash: string, collect: boolean): Churn {
  // Most calls have no churn behind them: nothing is allocated until a record could be one.
  let i = h.length - 1;
  for (; i >= 0 && h[i]!.toolName === toolName && !hasResult(h[i]!); i--);
  if (i < 0 || h[i]!.toolName !== toolName || h[i]!.noProgress !== true) return NO_CHURN;
  const outcomes = new Map<string, { resultHash: string; count: number }>();
  const records: ProfileRecord[] = [];
  for (; i >= 0; i--) {
    const r = h[i]!;
    if (r.toolName !== toolName) break;
    if (!hasResult(r)) continue;
    if (r.noProgress !== true) break;
    const before = outcomes.get(r.argsHash);
    if (before !== undefined && before.resultHash !== r.resultHash) break;
    outcomes.set(r.argsHash, { resultHash: r.resultHash!, count: (before?.count ?? 0) + 1 });
    if (collect) records.push(r);
  }
  let count = 0;
  let stableCount = 0;
  const stable = new Set<string>();
  let variants = 0;
  for (const o of outcomes.values()) {
    count += o.count;
    if (o.count >= STABLE_CALLS) {
      variants++;
      stableCount += o.count;
      stable.add(o.resultHash);
    }
  }
  const current = outcomes.get(argsHash)?.count ?? 0;
  return variants > 1 && stableCount === count && stable.size === 1 && current >= STABLE_CALLS ? { count, variants, records } : NO_CHURN;
}

interface PingPong {
  readonly count: number;
  readonly evidence: boolean;
  readonly pairedToolName: string | undefined;
  readonly pairedArgsHash: string | undefined;
}

const NO_PING_PONG: PingPong = { count: 0, evidence: false, pairedToolName: undefined, pairedArgsHash: undefined };

/**
 * Ping-pong: the newest record L, and O, the newest earlier record with other arguments; the
 * tail alternates L, O, L, O… by arguments alone. With a tail of two or more and the current
 * call continuing it (O's arguments), the count is the tail plus one. It is evidence of no
 * progress when every tail record has an outcome (vetoes have none) and each side's outcomes
 * are all equal.
 */
function pingPongOf(h: History, argsHash: string): PingPong {
  const last = h[h.length - 1];
  if (last === undefined) return NO_PING_PONG;
  let other: ProfileRecord | undefined;
  for (let i = h.length - 2; i >= 0; i--) {
    if (!hasArgs(h[i]!, last.argsKey, last.argsHash)) {
      other = h[i];
      break;
    }
  }
  if (other === undefined || other.toolName === '') return NO_PING_PONG;
  let tail = 0;
  for (let i = h.length - 1; i >= 0; i--) {
    const expected = tail % 2 === 0 ? last : other;
    if (!hasArgs(h[i]!, expected.argsKey, expected.argsHash)) break;
    tail++;
  }
  if (tail < 2 || argsHash !== other.argsHash) return NO_PING_PONG;
  let a: string | undefined;
  let b: string | undefined;
  let evidence = true;
  for (let i = h.length - tail; i < h.length && evidence; i++) {
    const r = h[i]!;
    if (!hasResult(r)) evidence = false;
    else if (r.argsHash === last.argsHash) {
      if (a === undefined) a = r.resultHash;
      else if (a !== r.resultHash) evidence = false;
    } else if (b === undefined) b = r.resultHash;
    else if (b !== r.resultHash) evidence = false;
  }
  return { count: tail + 1, evidence: evidence && a !== undefined && b !== undefined, pairedToolName: last.toolName, pairedArgsHash: last.argsHash };
}

const oldestFirst = (newestFirst: readonly ProfileRecord[]): Evidence | undefined => evidenceOf([...newestFirst].reverse());
const newest = (h: History, n: number): Evidence | undefined => evidenceOf(h.slice(h.length - n));

/** The first of the profile's rules that matches, in the host's order, or undefined (allow). */
export function detectOpenclaw(h: History, call: ProfileCall, cfg: ResolvedLoopDetection): ProfileFinding | undefined {
  const { toolName, argsHash } = call;
  const argsKey = argsKeyOf(argsHash);
  const unknown = unknownStreak(h, toolName);
  if (unknown >= cfg.unknownToolThreshold) {
    return { decision: 'block', detector: DETECTORS.unknownToolRepeat, count: unknown, warningKey: '', evidence: newest(h, unknown) };
  }
  const streak = noProgress(h, call, argsKey);
  const streakEvidence = () => oldestFirst(noProgress(h, call, argsKey, true).records!);
  if (streak.count >= cfg.globalCircuitBreakerThreshold) {
    return { decision: 'block', detector: DETECTORS.globalCircuitBreaker, count: streak.count, warningKey: '', evidence: streakEvidence() };
  }
  const poll = call.poll ?? isKnownPoll(toolName, call.action);
  if (poll && cfg.detectors.knownPollNoProgress) {
    const warningKey = `poll:${toolName}:${argsHash}:${streak.latest ?? 'none'}`;
    if (streak.count >= cfg.criticalThreshold) return { decision: 'block', detector: DETECTORS.knownPollNoProgress, count: streak.count, warningKey, evidence: streakEvidence() };
    if (streak.count >= cfg.warningThreshold) return { decision: 'warn', detector: DETECTORS.knownPollNoProgress, count: streak.count, warningKey, evidence: streakEvidence() };
  }
  if (cfg.detectors.pingPong) {
    const pp = pingPongOf(h, argsHash);
    if (pp.count >= cfg.warningThreshold || (pp.count >= cfg.criticalThreshold && pp.evidence)) {
      const warningKey = `pingpong:${[argsHash, pp.pairedArgsHash!].sort().join('|')}`;
      const found = { detector: DETECTORS.pingPong, count: pp.count, pairedToolName: pp.pairedToolName, warningKey, evidence: newest(h, pp.count - 1) };
      if (pp.count >= cfg.criticalThreshold && pp.evidence) return { decision: 'block', ...found };
      return { decision: 'warn', ...found };
    }
  }
  if (!poll && cfg.detectors.genericRepeat && streak.count >= cfg.criticalThreshold) {
    return { decision: 'block', detector: DETECTORS.genericRepeat, count: streak.count, warningKey: '', evidence: streakEvidence() };
  }
  if (cfg.detectors.genericRepeat) {
    const churn = churnOf(h, toolName, argsHash, false);
    if (churn.count >= cfg.warningThreshold) {
      const evidence = oldestFirst(churnOf(h, toolName, argsHash, true).records);
      return { decision: 'warn', detector: DETECTORS.argumentChurn, count: churn.count, warningKey: `argument-churn:${toolName}`, evidence };
    }
  }
  if (!poll && cfg.detectors.genericRepeat) {
    const same = (r: ProfileRecord) => r.toolName === toolName && hasArgs(r, argsKey, argsHash);
    let recent = 0;
    for (const r of h) if (same(r)) recent++;
    if (recent >= cfg.warningThreshold) {
      return { decision: 'warn', detector: DETECTORS.genericRepeat, count: recent, warningKey: `generic:${toolName}:${argsHash}`, evidence: evidenceOf(h.filter(same)) };
    }
  }
  return undefined;
}
