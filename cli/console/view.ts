// What the console shows, folded from plain decisions as they are read from the decision topic
// (every instance's): the acting decisions, the runs being warned or blocked now, the bot pairs
// in cooldown, and counts per detector and reason over the last minutes.
//
// "Now" is stream time: the newest decision's ts. Cooldowns end, runs go idle and counts age
// by it, so a replayed or delayed stream looks as it did when it ran, and nothing depends on
// the wall clock of the machine showing it.
import type { Decision } from '../../topology/topology.js';
import { summarise } from '../render.js';

/** A decision as read; `shadow` and `evidence` are shown when a decision carries them. */
export type ConsoleDecision = Decision & { readonly shadow?: boolean | null; readonly evidence?: unknown };

export const ACTING = ['warn', 'block', 'abort', 'suppress'] as const;
export type Acting = (typeof ACTING)[number];
export type Verdict = Acting | 'allow' | 'deliver';

export interface FeedItem {
  readonly id: string;
  readonly ts: number;
  readonly verdict: Acting;
  /** Run key, or `channel accountId/conversationId`. */
  readonly where: string;
  /** Tool name, or the two bots of the pair. */
  readonly subject: string;
  /** Detector (tool decisions, aborts) or reason (suppress). */
  readonly why: string;
  readonly count: number | null;
  readonly message: string;
  readonly notify: boolean;
  readonly cooldownUntil: number | null;
  readonly shadow: boolean;
  readonly evidence: Readonly<Record<string, unknown>> | null;
}

export interface RunRow {
  readonly key: string;
  readonly state: 'warned' | 'blocked' | 'aborted';
  readonly toolName: string;
  readonly detector: string;
  readonly count: number | null;
  readonly message: string;
  readonly warns: number;
  readonly blocks: number;
  /**
   * Its spent calls as far as decisions tell (§5): the allowed and warned calls seen since the
   * console began reading (an exempt call is allowed too, so it counts here), or the count of
   * a run call budget block, which is exact.
   */
  readonly calls: number;
  readonly since: number;
  readonly lastTs: number;
  readonly shadow: boolean;
}

export interface CooldownRow {
  readonly key: string;
  readonly channel: string;
  readonly conversation: string;
  readonly bots: string;
  readonly reason: string;
  /** Ts of the earliest suppress that reported this cooldown's end (its start, as far as decisions tell). */
  readonly since: number;
  readonly cooldownUntil: number;
  /** Time left at stream time. */
  readonly leftMs: number;
  readonly suppressed: number;
  readonly shadow: boolean;
  readonly evidence: Readonly<Record<string, unknown>> | null;
}

export interface CountRow {
  readonly verdict: Acting;
  readonly why: string;
  readonly shadow: boolean;
  /** Decisions in the last 1, 5 and `windowMinutes` minutes of stream time. */
  readonly counts: readonly [number, number, number];
}

export interface Snapshot {
  /** Stream time: the newest decision's ts (null before the first). */
  readonly now: number | null;
  readonly decisions: number;
  readonly windowMinutes: number;
  /** Every verdict, acting or not, over the window. */
  readonly totals: Readonly<Record<Verdict, number>>;
  readonly feed: readonly FeedItem[];
  readonly runs: readonly RunRow[];
  readonly cooldowns: readonly CooldownRow[];
  readonly counts: readonly CountRow[];
}

export interface ViewOptions {
  readonly feedSize: number;
  readonly windowMinutes: number;
  /** A run with no acting decision for this long (stream time) leaves the list. */
  readonly runIdleMs: number;
  /** At most this many runs and pairs are tracked; the longest idle go first. */
  readonly maxTracked: number;
}

export const DEFAULT_VIEW: ViewOptions = { feedSize: 200, windowMinutes: 15, runIdleMs: 15 * 60_000, maxTracked: 1000 };

const MINUTE = 60_000;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function verdictOf(d: ConsoleDecision): Verdict {
  if (d.type === 'run_abort') return 'abort';
  return d.decision;
}

const whereOf = (d: ConsoleDecision): string => (d.type === 'bot_decision' ? `${d.channel} ${d.accountId}/${d.conversationId}` : d.key);
const whyOf = (d: ConsoleDecision): string => (d.type === 'bot_decision' ? (d.reason ?? '') : (d.detector ?? ''));

export function feedItem(d: ConsoleDecision, verdict: Acting): FeedItem {
  const s = summarise(d);
  return {
    id: d.id,
    ts: d.ts,
    verdict,
    where: whereOf(d),
    subject: s.subject,
    why: whyOf(d),
    count: s.count,
    message: s.message,
    notify: s.notify,
    cooldownUntil: d.type === 'bot_decision' ? d.cooldownUntil : null,
    shadow: d.shadow === true,
    evidence: isObj(d.evidence) ? d.evidence : null,
  };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type RunState = Mutable<RunRow>;
type PairState = Mutable<CooldownRow>;

export class ConsoleView {
  private now: number | null = null;
  private seen = 0;
  private feed: FeedItem[] = [];
  private readonly runs = new Map<string, RunState>();
  private readonly pairs = new Map<string, PairState>();
  /** Per run key: its allowed and warned calls (RunRow.calls), most recently updated last. */
  private readonly spent = new Map<string, number>();
  /** Per minute of stream time: count per `verdict\twhy\tshadow` (acting) and per verdict (all). */
  private readonly minutes = new Map<number, Map<string, number>>();
  /** Bumped on every change, so a server pushes only new snapshots. */
  version = 0;

  constructor(private readonly opts: ViewOptions = DEFAULT_VIEW) {}

  add(d: ConsoleDecision): void {
    this.seen++;
    this.version++;
    if (this.now === null || d.ts > this.now) this.now = d.ts;
    const verdict = verdictOf(d);
    this.count(d, verdict);
    if (d.type === 'bot_decision') this.pair(d, verdict);
    else this.run(d, verdict);
    if (verdict === 'allow' || verdict === 'deliver') return;
    this.feed.unshift(feedItem(d, verdict));
    if (this.feed.length > this.opts.feedSize * 2) this.feed = this.sortedFeed();
  }

  snapshot(): Snapshot {
    const now = this.now;
    this.prune();
    const cooldowns =
      now === null
        ? []
        : [...this.pairs.values()]
            .filter((p) => p.cooldownUntil > now)
            .map((p) => ({ ...p, leftMs: p.cooldownUntil - now }))
            .sort((a, b) => a.cooldownUntil - b.cooldownUntil || a.key.localeCompare(b.key));
    const runs = [...this.runs.values()].map((r) => ({ ...r })).sort((a, b) => b.lastTs - a.lastTs || a.key.localeCompare(b.key));
    return { now, decisions: this.seen, windowMinutes: this.opts.windowMinutes, totals: this.totals(), feed: this.sortedFeed(), runs, cooldowns, counts: this.countRows() };
  }

  /** Newest first by ts; decisions from different partitions may arrive out of ts order. */
  private sortedFeed(): FeedItem[] {
    return [...this.feed].sort((a, b) => b.ts - a.ts).slice(0, this.opts.feedSize);
  }

  private run(d: Extract<ConsoleDecision, { type: 'tool_decision' | 'run_abort' }>, verdict: Verdict): void {
    const existing = this.runs.get(d.key);
    const calls = this.spend(d, verdict);
    if (existing !== undefined) existing.calls = calls;
    if (verdict === 'allow') {
      // A run that is let through again is no longer being warned or blocked; an aborted run
      // stays aborted whatever follows.
      if (existing !== undefined && existing.state !== 'aborted') this.runs.delete(d.key);
      return;
    }
    const r: RunState = existing ?? {
      key: d.key,
      state: 'warned',
      toolName: '',
      detector: '',
      count: null,
      message: '',
      warns: 0,
      blocks: 0,
      calls,
      since: d.ts,
      lastTs: d.ts,
      shadow: false,
    };
    if (verdict === 'warn') r.warns++;
    if (verdict === 'block') r.blocks++;
    if (r.state !== 'aborted') r.state = verdict === 'abort' ? 'aborted' : verdict === 'block' ? 'blocked' : 'warned';
    r.toolName = d.toolName ?? r.toolName;
    r.detector = d.detector ?? r.detector;
    r.count = d.count ?? r.count;
    if (d.message) r.message = d.message;
    r.since = Math.min(r.since, d.ts);
    r.lastTs = Math.max(r.lastTs, d.ts);
    r.shadow = d.shadow === true;
    this.runs.delete(d.key);
    this.runs.set(d.key, r);
  }

  /** The run's spent calls after this decision (see RunRow.calls). */
  private spend(d: Extract<ConsoleDecision, { type: 'tool_decision' | 'run_abort' }>, verdict: Verdict): number {
    let n = this.spent.get(d.key) ?? 0;
    if (verdict === 'allow' || verdict === 'warn') n++;
    else if (d.detector === 'run_call_budget' && d.count !== null) n = d.count;
    this.spent.delete(d.key);
    this.spent.set(d.key, n);
    return n;
  }

  private pair(d: Extract<ConsoleDecision, { type: 'bot_decision' }>, verdict: Verdict): void {
    const bots = [d.senderId, d.receiverId].sort();
    const key = [d.channel, d.accountId, d.conversationId, ...bots].join('\u0000');
    const existing = this.pairs.get(key);
    // A message delivered at t ≥ the cooldown's start means the cooldown no longer holds at t
    // (it ran out, or a person ended it). An older message delivered late says nothing: a
    // cooldown that starts after a message does not apply to it.
    if (verdict === 'deliver') {
      if (existing !== undefined && d.ts >= existing.since) this.pairs.delete(key);
      return;
    }
    if (d.cooldownUntil === null || d.cooldownUntil <= d.ts) return; // a hop limit: suppressed, no cooldown
    const p: PairState = existing ?? {
      key,
      channel: d.channel ?? '',
      conversation: `${d.accountId}/${d.conversationId}`,
      bots: bots.join(' ↔ '),
      reason: '',
      since: d.ts,
      cooldownUntil: d.cooldownUntil,
      leftMs: 0,
      suppressed: 0,
      shadow: false,
      evidence: null,
    };
    p.suppressed++;
    if (d.cooldownUntil > p.cooldownUntil) p.since = d.ts;
    else p.since = Math.min(p.since, d.ts);
    if (d.cooldownUntil >= p.cooldownUntil) {
      p.cooldownUntil = d.cooldownUntil;
      p.reason = d.reason ?? '';
      p.evidence = isObj(d.evidence) ? d.evidence : p.evidence;
    }
    p.shadow = d.shadow === true;
    this.pairs.delete(key);
    this.pairs.set(key, p);
  }

  private count(d: ConsoleDecision, verdict: Verdict): void {
    const minute = Math.floor(d.ts / MINUTE);
    if (this.now !== null && minute <= Math.floor(this.now / MINUTE) - this.opts.windowMinutes) return;
    let m = this.minutes.get(minute);
    if (m === undefined) this.minutes.set(minute, (m = new Map()));
    m.set(verdict, (m.get(verdict) ?? 0) + 1);
    if (verdict !== 'allow' && verdict !== 'deliver') {
      const label = `${verdict}\t${whyOf(d)}\t${d.shadow === true ? 1 : 0}`;
      m.set(label, (m.get(label) ?? 0) + 1);
    }
  }

  private totals(): Record<Verdict, number> {
    const out: Record<Verdict, number> = { allow: 0, warn: 0, block: 0, abort: 0, deliver: 0, suppress: 0 };
    for (const m of this.minutes.values()) for (const v of Object.keys(out) as Verdict[]) out[v] += m.get(v) ?? 0;
    return out;
  }

  private countRows(): CountRow[] {
    if (this.now === null) return [];
    const current = Math.floor(this.now / MINUTE);
    const rows = new Map<string, [number, number, number]>();
    for (const [minute, m] of this.minutes) {
      const age = current - minute;
      for (const [label, n] of m) {
        if (!label.includes('\t')) continue;
        const c = rows.get(label) ?? [0, 0, 0];
        if (age < 1) c[0] += n;
        if (age < 5) c[1] += n;
        c[2] += n;
        rows.set(label, c);
      }
    }
    const order = (v: string) => ACTING.indexOf(v as Acting);
    return [...rows]
      .map(([label, counts]) => {
        const [verdict, why, shadow] = label.split('\t') as [Acting, string, string];
        return { verdict, why, shadow: shadow === '1', counts };
      })
      .sort((a, b) => order(a.verdict) - order(b.verdict) || b.counts[2] - a.counts[2] || a.why.localeCompare(b.why));
  }

  /** Drops what has aged out of stream time, and the longest idle beyond the tracking bound. */
  private prune(): void {
    if (this.now === null) return;
    const now = this.now;
    const oldest = Math.floor(now / MINUTE) - this.opts.windowMinutes;
    for (const minute of this.minutes.keys()) if (minute <= oldest) this.minutes.delete(minute);
    for (const [k, r] of this.runs) if (now - r.lastTs > this.opts.runIdleMs) this.runs.delete(k);
    for (const [k, p] of this.pairs) if (p.cooldownUntil <= now) this.pairs.delete(k);
    trim(this.runs, this.opts.maxTracked);
    trim(this.spent, this.opts.maxTracked);
    trim(this.pairs, this.opts.maxTracked);
  }
}

/** Maps keep insertion order and every update re-inserts, so the first entries are the least recently updated. */
function trim(m: Map<string, unknown>, max: number): void {
  for (const k of m.keys()) {
    if (m.size <= max) return;
    m.delete(k);
  }
}
