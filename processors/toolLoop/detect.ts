// Counting over a run's history (docs/behaviour.md §2.4) and the decision order (docs/behaviour.md §2.5).
import type { ResolvedLoopDetection } from './config.js';
import { argsKeyOf, DETECTORS, evidenceOf, hasArgs, type Detector, type Evidence, type ToolRecord } from './state.js';

export interface CallFacts {
  readonly toolName: string;
  readonly argsHash: string;
  /** The args' action (for poll classification). */
  readonly action: string | undefined;
  /** A per-tool `poll` setting (§4.3): overrides the known-poll classification. */
  readonly poll?: boolean | undefined;
}

export interface Finding {
  readonly decision: 'warn' | 'block';
  readonly detector: Detector;
  readonly count: number;
  readonly pairedToolName?: string | undefined;
  /** Identifies the warning for notification bucketing (§2.8). */
  readonly warningKey: string;
  /** The records that make up `count` (§4.5). */
  readonly evidence: Evidence | undefined;
}

export function isKnownPoll(toolName: string, action: string | undefined): boolean {
  return toolName === 'command_status' || (toolName === 'process' && (action === 'poll' || action === 'log'));
}

interface Counts {
  readonly recentCount: number;
  readonly noProgressStreak: number;
  /** Result hash of the newest record with this tool+args (for the poll warning key). */
  readonly newestResultHash: string | undefined;
}

export function countRepeats(history: readonly ToolRecord[], toolName: string, argsHash: string, argsKey = argsKeyOf(argsHash)): Counts {
  let recentCount = 0;
  let streak = 0;
  let streakHash: string | undefined;
  let streakOpen = true;
  let newestResultHash: string | undefined;
  for (let i = history.length - 1; i >= 0; i--) {
    const r = history[i]!;
    if (!hasArgs(r, argsKey, argsHash) || r.toolName !== toolName) continue;
    if (recentCount === 0) newestResultHash = r.resultHash;
    recentCount++;
    if (!streakOpen || r.resultHash === undefined) continue;
    if (streakHash === undefined) {
      streakHash = r.resultHash;
      streak = 1;
    } else if (r.resultHash === streakHash) streak++;
    else streakOpen = false;
  }
  return { recentCount, noProgressStreak: streak, newestResultHash };
}

export function unknownToolStreak(history: readonly ToolRecord[], toolName: string): number {
  const newest = history[history.length - 1];
  const name = newest?.unknownToolName;
  if (newest === undefined || name === undefined || newest.toolName !== toolName) return 0;
  let n = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const r = history[i]!;
    if (r.toolName !== toolName || r.unknownToolName !== name) break;
    n++;
  }
  return n;
}

export interface PingPong {
  readonly count: number;
  readonly noProgressEvidence: boolean;
  readonly pairedToolName: string | undefined;
  readonly pairKey: string;
}

const NO_PING_PONG: PingPong = { count: 0, noProgressEvidence: false, pairedToolName: undefined, pairKey: '' };

export function pingPong(history: readonly ToolRecord[], argsHash: string, argsKey = argsKeyOf(argsHash)): PingPong {
  const last = history[history.length - 1];
  if (last === undefined) return NO_PING_PONG;
  const l = last.argsHash;
  let otherRecord: ToolRecord | undefined;
  for (let i = history.length - 2; i >= 0; i--) {
    if (!hasArgs(history[i]!, last.argsKey, l)) {
      otherRecord = history[i];
      break;
    }
  }
  if (otherRecord === undefined || !hasArgs(otherRecord, argsKey, argsHash)) return NO_PING_PONG;
  const other = otherRecord.argsHash;
  let tail = 0;
  let lHash: string | undefined | null = null;
  let oHash: string | undefined | null = null;
  let evidence = true;
  for (let i = history.length - 1; i >= 0; i--) {
    const r = history[i]!;
    const lSide = tail % 2 === 0;
    if (!(lSide ? hasArgs(r, last.argsKey, l) : hasArgs(r, otherRecord.argsKey, other))) break;
    tail++;
    if (r.resultHash === undefined) {
      evidence = false;
      continue;
    }
    if (lSide) {
      if (lHash === null) lHash = r.resultHash;
      else if (lHash !== r.resultHash) evidence = false;
    } else if (oHash === null) oHash = r.resultHash;
    else if (oHash !== r.resultHash) evidence = false;
  }
  if (tail < 2) return NO_PING_PONG;
  const pairKey = [l, other].sort().join('|');
  return { count: tail + 1, noProgressEvidence: evidence, pairedToolName: last.toolName, pairKey };
}

// ---- evidence (§4.5): the records each count is made of, oldest first ------------------------

/** The records of the no-progress streak. */
function streakRecords(history: readonly ToolRecord[], toolName: string, argsKey: number, argsHash: string): ToolRecord[] {
  const out: ToolRecord[] = [];
  for (let i = history.length - 1; i >= 0; i--) {
    const r = history[i]!;
    if (!hasArgs(r, argsKey, argsHash) || r.toolName !== toolName || r.resultHash === undefined) continue;
    if (out.length > 0 && r.resultHash !== out[0]!.resultHash) break;
    out.push(r);
  }
  return out.reverse();
}

const sameCall = (history: readonly ToolRecord[], toolName: string, argsKey: number, argsHash: string) =>
  history.filter((r) => hasArgs(r, argsKey, argsHash) && r.toolName === toolName);
/** The newest `n` records (the unknown-tool streak and the ping-pong tail are contiguous). */
const newest = (history: readonly ToolRecord[], n: number) => history.slice(history.length - n);

/** The first rule of §2.5 that matches, or undefined (allow). */
export function detect(history: readonly ToolRecord[], call: CallFacts, cfg: ResolvedLoopDetection): Finding | undefined {
  const { toolName, argsHash } = call;
  const unknown = unknownToolStreak(history, toolName);
  if (unknown >= cfg.unknownToolThreshold) {
    return { decision: 'block', detector: DETECTORS.unknownToolRepeat, count: unknown, warningKey: '', evidence: evidenceOf(newest(history, unknown)) };
  }
  const argsKey = argsKeyOf(argsHash);
  const { recentCount, noProgressStreak, newestResultHash } = countRepeats(history, toolName, argsHash, argsKey);
  const streak = () => evidenceOf(streakRecords(history, toolName, argsKey, argsHash));
  if (noProgressStreak >= cfg.globalCircuitBreakerThreshold) {
    return { decision: 'block', detector: DETECTORS.globalCircuitBreaker, count: noProgressStreak, warningKey: '', evidence: streak() };
  }
  const poll = call.poll ?? isKnownPoll(toolName, call.action);
  if (poll && cfg.detectors.knownPollNoProgress) {
    const warningKey = `poll|${toolName}|${argsHash}|${newestResultHash ?? ''}`;
    if (noProgressStreak >= cfg.criticalThreshold) return { decision: 'block', detector: DETECTORS.knownPollNoProgress, count: noProgressStreak, warningKey, evidence: streak() };
    if (noProgressStreak >= cfg.warningThreshold) return { decision: 'warn', detector: DETECTORS.knownPollNoProgress, count: noProgressStreak, warningKey, evidence: streak() };
  }
  // Warning keys and findings are built only once a rule matches: this runs for every call.
  if (cfg.detectors.pingPong) {
    const pp = pingPong(history, argsHash, argsKey);
    if (pp.count >= cfg.warningThreshold || pp.count >= cfg.criticalThreshold) {
      const found = { detector: DETECTORS.pingPong, count: pp.count, pairedToolName: pp.pairedToolName, warningKey: `pingpong|${pp.pairKey}` };
      // The tail is count − 1 records: the current call is not listed.
      if (pp.count >= cfg.criticalThreshold && pp.noProgressEvidence) return { decision: 'block', ...found, evidence: evidenceOf(newest(history, pp.count - 1)) };
      if (pp.count >= cfg.warningThreshold) return { decision: 'warn', ...found, evidence: evidenceOf(newest(history, pp.count - 1)) };
    }
  }
  if (!poll && cfg.detectors.genericRepeat) {
    if (noProgressStreak >= cfg.criticalThreshold)
      return { decision: 'block', detector: DETECTORS.genericRepeat, count: noProgressStreak, warningKey: `generic|${toolName}|${argsHash}`, evidence: streak() };
    if (recentCount >= cfg.warningThreshold)
      return {
        decision: 'warn',
        detector: DETECTORS.genericRepeat,
        count: recentCount,
        warningKey: `generic|${toolName}|${argsHash}`,
        evidence: evidenceOf(sameCall(history, toolName, argsKey, argsHash)),
      };
  }
  return undefined;
}
