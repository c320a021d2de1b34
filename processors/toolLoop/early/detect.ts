// The early preset's rules (docs/behaviour.md §7.5), over the run's records before a call C. L is
// the newest record of C's identity whose outcome came with a progress hash or found the tool
// missing. C is blocked when L found the tool missing; allowed when the agent waited since L;
// blocked when nothing since L made progress (every record after it stale, and L stale or
// followed by one), or when the two records before C repeat, with the same outcomes, the two
// before L (a cycle); else allowed. Duplicates, transient failures and the calls of C's own turn
// still waiting for their outcomes are skipped throughout.
import type { Evidence } from '../../kernel/evidence.js';
import { argsKeyOf, DETECTORS, evidenceOf, type Detector } from '../state.js';
import { isWaiting, lastProgress, sameIdentity, waited, type EarlyRecord, type History } from './records.js';

export interface EarlyCall {
  readonly toolName: string;
  readonly identity: string;
  readonly turnId: string | undefined;
  readonly poll: boolean;
  readonly ts: number;
}

export interface EarlyFinding {
  readonly detector: Detector;
  readonly count: number;
  readonly evidence: Evidence | undefined;
}

/** Whether a record takes part in the rules for a call of `turnId`. */
const counts = (r: EarlyRecord, turnId: string | undefined): boolean => !r.duplicate && !r.transient && !(turnId !== undefined && r.turnId === turnId && isWaiting(r));

/** Two records that made the same call and got the same outcome. */
const sameStep = (a: EarlyRecord, b: EarlyRecord): boolean => a.argsKey === b.argsKey && a.argsHash === b.argsHash && a.toolName === b.toolName && a.resultHash === b.resultHash;

/** The indexes of the newest `n` records before `before` that count for the call, newest first. */
function newestCounted(h: History, before: number, n: number, turnId: string | undefined): number[] {
  const out: number[] = [];
  for (let i = before - 1; i >= 0 && out.length < n; i--) if (counts(h[i]!, turnId)) out.push(i);
  return out;
}

/** The first rule of §7.5 that blocks the call, or undefined (allow). */
export function detectEarly(h: History, c: EarlyCall): EarlyFinding | undefined {
  const argsKey = argsKeyOf(c.identity);
  let li = -1;
  for (let i = h.length - 1; i >= 0; i--) {
    const r = h[i]!;
    if ((r.resultHash !== undefined || r.unknownToolName !== undefined) && sameIdentity(r, c.toolName, argsKey, c.identity)) {
      li = i;
      break;
    }
  }
  // 1. Nothing of this call is known yet.
  if (li < 0) return undefined;
  const last = h[li]!;
  // 2. It found the tool missing.
  if (last.unknownToolName !== undefined) return unknownTool(h, li, c, argsKey);
  // 3. The agent waited before asking again.
  if (waited(last, c.ts, c.poll)) return undefined;
  // 4. Nothing since L made progress.
  const since: EarlyRecord[] = [];
  let stale = true;
  for (let i = li + 1; i < h.length && stale; i++) {
    const r = h[i]!;
    if (!counts(r, c.turnId)) continue;
    if (r.stale) since.push(r);
    else stale = false;
  }
  if (stale && (last.stale || since.length > 0)) {
    const repeated = last.stale ? lastProgress(h, li, c.toolName, argsKey, c.identity) : -1;
    const records = [...(repeated >= 0 ? [h[repeated]!] : []), last, ...since];
    return { detector: DETECTORS.noProgress, count: since.length + 1 + (last.stale ? 1 : 0), evidence: evidenceOf(records) };
  }
  // 5. The two records before C repeat the two before L: the run goes round a cycle.
  const now = newestCounted(h, h.length, 2, c.turnId);
  const then = newestCounted(h, li, 2, c.turnId);
  if (now.length === 2 && then.length === 2 && now.every((i, k) => h[i]!.stale && sameStep(h[i]!, h[then[k]!]!))) {
    const cycle: EarlyRecord[] = [];
    for (let i = then[1]!; i < h.length; i++) if (counts(h[i]!, c.turnId)) cycle.push(h[i]!);
    return { detector: DETECTORS.cycleNoProgress, count: cycle.length - 2, evidence: evidenceOf(cycle) };
  }
  return undefined;
}

/** The records of the identity, back from L while their outcomes found the tool missing. */
function unknownTool(h: History, li: number, c: EarlyCall, argsKey: number): EarlyFinding {
  const streak: EarlyRecord[] = [];
  for (let i = li; i >= 0; i--) {
    const r = h[i]!;
    if (!sameIdentity(r, c.toolName, argsKey, c.identity) || (r.resultHash === undefined && r.unknownToolName === undefined)) continue;
    if (r.unknownToolName === undefined) break;
    streak.push(r);
  }
  return { detector: DETECTORS.unknownToolRepeat, count: streak.length, evidence: evidenceOf(streak.reverse()) };
}
