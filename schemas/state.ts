// Changelog codecs of the two state stores: a key's state and the input offset last folded into
// it. Their Avro schemas are the .avsc files beside this module; they evolve BACKWARD (the
// newest loopguard reads every older changelog value).
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type avro from 'avsc';
import { lazyType, type ValueCodec } from './avro.js';
import type { BotEvidence, ConversationState, Cooldown, PairState, ReceiverState, SlowLoopState } from '../processors/botLoop/state.js';
import { emptyIds, idsFrom, mapIds } from '../processors/kernel/idMemory.js';
import type { SessionState } from '../processors/toolLoop/session.js';
import { profileRecord, type ProfileRecord } from '../processors/toolLoop/openclaw/records.js';
import { earlyRecord, type EarlyRecord } from '../processors/toolLoop/early/records.js';
import {
  ABORT_DETECTORS,
  DETECTORS,
  MAX_EVENT_IDS,
  toolRecord,
  type Aborted,
  type Detector,
  type Evidence,
  type ProfileRun,
  type RunState,
  type Spent,
  type Tally,
  type ToolRecord,
  type Verdict,
} from '../processors/toolLoop/state.js';

/** What the changelog holds per key: the state and the input offset last folded into it. */
export interface StoreEntry<S = unknown> {
  readonly state: S;
  readonly offset: number;
}

const here = dirname(fileURLToPath(import.meta.url));
export const SCHEMA_DIR = here.split(/[\\/]/).includes('dist') ? resolve(here, '../../schemas') : here;

export function loadSchema(name: string): avro.Schema {
  return JSON.parse(readFileSync(resolve(SCHEMA_DIR, `${name}.avsc`), 'utf8')) as avro.Schema;
}

// The Avro records as avsc reads them (unions unwrapped: null or the value).
interface AvroEvidence {
  toolCallIds: string[];
  since: number;
}
interface AvroVerdict {
  decision: string;
  detector: string | null;
  level: string | null;
  count: number | null;
  notify: boolean | null;
  pairedToolName: string | null;
  shadow: boolean | null;
  evidence: AvroEvidence | null;
  /** Null in values written before the openclaw profile. */
  turnBlockedBy?: string | null;
}
interface AvroRecord {
  toolName: string;
  argsHash: string;
  toolCallId: string | null;
  resultHash: string | null;
  unknownToolName: string | null;
  ts: number;
}
/** The openclaw profile's facts about one record (§6), kept beside the history, not in it. */
interface AvroFacts {
  /** The record's index in the history. */
  at: number;
  run: string | null;
  kind: string | null;
  failureIdentityHash: string | null;
  noProgress: boolean | null;
  turnId: string | null;
}
interface AvroBlockedTurn {
  turnId: string;
  toolName: string;
  argsHash: string;
  toolCallId: string | null;
  detector: string;
  count: number;
  pairedToolName: string | null;
  evidence: AvroEvidence | null;
  vetoes: boolean;
  calls: string[];
}
interface AvroRun {
  lastTs: number | null;
  agentId: string | null;
  history: AvroRecord[];
  guard: { remaining: number; window: string[]; windowEvents: Array<{ toolCallId: string | null; ts: number }> } | null;
  aborted: { count: number; toolName: string; detector: string | null; evidence: AvroEvidence | null } | null;
  blocked: { count: number; since: number; toolCallIds: string[] } | null;
  warnings: Array<{ key: string; count: number }>;
  eventIds: Array<{ eventType: string; eventId: string; verdict: AvroVerdict | null }>;
  /** Null in values written before budgets (§5). */
  spent: { all: AvroTally | null; tools: Array<{ key: string; tally: AvroTally }> } | null;
  /** Null for runs without the openclaw profile, and in values written before it. */
  profile?: { criticalSeen: boolean; turn: AvroBlockedTurn | null; records: AvroFacts[] } | null;
  /** Null for runs without the early preset's records, and in values written before it. */
  early?: { records: AvroEarlyFacts[] } | null;
}
/** The early preset's facts about one record (§7.4), kept beside the history, not in it. */
interface AvroEarlyFacts {
  /** The record's index in the history. */
  at: number;
  outcomeTs: number | null;
  turnId: string | null;
  poll: boolean;
  duplicate: boolean;
  transient: boolean;
  stale: boolean;
}
interface AvroTally {
  count: number;
  since: number;
  toolCallIds: string[];
}
interface AvroCooldown {
  start: number;
  until: number;
  evidence: { since: number; count: number; senders: string[] } | null;
}
interface AvroPair {
  pairId: string;
  timestamps: number[];
  cooldown: AvroCooldown | null;
  seen: Array<{ id: string; ts: number }>;
  streamTime: number;
}
interface AvroReceiver {
  receiverId: string;
  events: Array<{ ts: number; senderId: string }>;
  cooldown: AvroCooldown | null;
}
interface AvroSlowLoop {
  lastHuman: number | null;
  counted: Array<{ ts: number; senderId: string }>;
  cooldown: AvroCooldown | null;
  humanIds: Array<{ id: string; ts: number }>;
}
interface AvroConversation {
  pairList: AvroPair[];
  receiverList: AvroReceiver[];
  slowLoop: AvroSlowLoop | null;
}

// Read on first use, not at import: an SDK client imports this module but never reads state,
// and a host that snapshots a plugin's module graph (OpenClaw) does not copy the .avsc files.
function stateCodec<S, A>(name: string, toAvro: (s: S) => A, fromAvro: (a: A) => S): ValueCodec<StoreEntry<S>> {
  let schema: avro.Schema | undefined;
  let type: (() => avro.Type) | undefined;
  return {
    name,
    get schema() {
      return (schema ??= loadSchema(name));
    },
    get type() {
      return (type ??= lazyType(this.schema))();
    },
    toAvro: (e) => ({ offset: e.offset, state: toAvro(e.state) }),
    fromAvro: (r) => {
      const { offset, state } = r as { offset: number; state: A };
      return { offset, state: fromAvro(state) };
    },
  };
}

const orUndefined = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

const evidenceToAvro = (e: Evidence | undefined): AvroEvidence | null => (e === undefined ? null : { toolCallIds: [...(e.toolCallIds ?? [])], since: e.since });
const evidenceFromAvro = (e: AvroEvidence | null): Evidence | undefined => (e === null ? undefined : { toolCallIds: [...e.toolCallIds], since: e.since });
const shadowFromAvro = (s: boolean | null): true | undefined => (s === true ? true : undefined);

function verdictToAvro(v: Verdict | null): AvroVerdict | null {
  if (v === null) return null;
  if (v.decision === 'allow')
    return { decision: 'allow', detector: null, level: null, count: null, notify: null, pairedToolName: null, shadow: v.shadow ?? null, evidence: null, turnBlockedBy: null };
  return {
    decision: v.decision,
    detector: v.detector,
    level: v.level,
    count: v.count,
    notify: v.notify,
    pairedToolName: v.pairedToolName ?? null,
    shadow: v.shadow ?? null,
    evidence: evidenceToAvro(v.evidence),
    turnBlockedBy: v.turnBlockedBy ?? null,
  };
}

// Optional members are set only when present, so a restored verdict equals the one folded.
function verdictFromAvro(v: AvroVerdict | null): Verdict | null {
  if (v === null) return null;
  const shadow = shadowFromAvro(v.shadow);
  if (v.decision === 'allow') return shadow ? { decision: 'allow', shadow } : { decision: 'allow' };
  const acting = {
    decision: v.decision as 'warn' | 'block',
    detector: v.detector as Extract<Verdict, { detector: unknown }>['detector'],
    level: v.level as 'warning' | 'critical',
    count: v.count ?? 0,
    notify: v.notify ?? true,
    pairedToolName: orUndefined(v.pairedToolName),
    shadow,
    evidence: evidenceFromAvro(v.evidence),
  };
  const by = v.turnBlockedBy ?? null;
  return by === null ? acting : { ...acting, turnBlockedBy: by };
}

function abortedFromAvro(a: NonNullable<AvroRun['aborted']>): Aborted {
  const detector = ABORT_DETECTORS.find((d) => d === a.detector) ?? DETECTORS.compactionLoopPersisted;
  return { count: a.count, toolName: a.toolName, detector, evidence: evidenceFromAvro(a.evidence) };
}

const recordToAvro = (h: ToolRecord): AvroRecord => ({
  toolName: h.toolName,
  argsHash: h.argsHash,
  toolCallId: h.toolCallId ?? null,
  resultHash: h.resultHash ?? null,
  unknownToolName: h.unknownToolName ?? null,
  ts: h.ts,
});

/** The facts of the records that have any, with their index: most records of a run's own history have none. */
function factsToAvro(history: readonly ToolRecord[]): AvroFacts[] {
  const out: AvroFacts[] = [];
  for (let at = 0; at < history.length; at++) {
    const p = history[at] as Partial<ProfileRecord>;
    if (p.run === undefined && p.kind === undefined && p.failureIdentityHash === undefined && p.noProgress === undefined && p.turnId === undefined) continue;
    out.push({ at, run: p.run ?? null, kind: p.kind ?? null, failureIdentityHash: p.failureIdentityHash ?? null, noProgress: p.noProgress ?? null, turnId: p.turnId ?? null });
  }
  return out;
}

const NO_FACTS: AvroFacts = { at: -1, run: null, kind: null, failureIdentityHash: null, noProgress: null, turnId: null };

/** `history` restored: a record with facts as the profile's, the others as plain records (or plain profile records for a run of the profile). */
function historyFromAvro(history: readonly AvroRecord[], facts: readonly AvroFacts[] | undefined, early?: readonly AvroEarlyFacts[]): ToolRecord[] {
  if (early !== undefined && early.length > 0) {
    const byIndex = new Map(early.map((f) => [f.at, f]));
    return history.map((h, at) => {
      const f = byIndex.get(at);
      return f === undefined ? recordFromAvro(h, undefined) : earlyFromAvro(h, f);
    });
  }
  if (facts === undefined) return history.map((h) => recordFromAvro(h, undefined));
  const byIndex = new Map(facts.map((f) => [f.at, f]));
  return history.map((h, at) => recordFromAvro(h, byIndex.get(at) ?? NO_FACTS));
}

const isEarly = (r: ToolRecord): r is EarlyRecord => (r as Partial<EarlyRecord>).duplicate !== undefined;

/** The early preset's facts of the records that are its own; null when none is (every other run). */
function earlyToAvro(history: readonly ToolRecord[]): AvroRun['early'] {
  let records: AvroEarlyFacts[] | null = null;
  for (let at = 0; at < history.length; at++) {
    const r = history[at]!;
    if (!isEarly(r)) continue;
    (records ??= []).push({
      at,
      outcomeTs: r.outcomeTs ?? null,
      turnId: r.turnId ?? null,
      poll: r.poll,
      duplicate: r.duplicate,
      transient: r.transient,
      stale: r.stale,
    });
  }
  return records === null ? null : { records };
}

function earlyFromAvro(h: AvroRecord, f: AvroEarlyFacts): EarlyRecord {
  return earlyRecord(
    h.toolName,
    h.argsHash,
    orUndefined(h.toolCallId),
    orUndefined(h.resultHash),
    orUndefined(h.unknownToolName),
    h.ts,
    orUndefined(f.outcomeTs),
    orUndefined(f.turnId),
    f.poll,
    f.duplicate,
    f.transient,
    f.stale,
  );
}

/** A record, with the profile's facts when its run follows the profile (§2's records keep their one shape). */
function recordFromAvro(h: AvroRecord, f: AvroFacts | undefined): ToolRecord {
  const [toolCallId, resultHash, unknownToolName] = [orUndefined(h.toolCallId), orUndefined(h.resultHash), orUndefined(h.unknownToolName)];
  if (f === undefined) return toolRecord(h.toolName, h.argsHash, toolCallId, resultHash, unknownToolName, h.ts);
  const kind = f.kind === 'veto' || f.kind === 'terminal-exec-failure' ? f.kind : undefined;
  return profileRecord(
    h.toolName,
    h.argsHash,
    toolCallId,
    resultHash,
    unknownToolName,
    h.ts,
    orUndefined(f.run),
    kind,
    orUndefined(f.failureIdentityHash),
    orUndefined(f.noProgress),
    orUndefined(f.turnId),
  );
}

// A run of the profile writes its records' facts here; a run of §2 (profile null) writes none.
function profileToAvro(p: ProfileRun | null, history: readonly ToolRecord[]): AvroRun['profile'] {
  if (p === null) return null;
  const t = p.turn;
  return {
    criticalSeen: p.criticalSeen,
    records: factsToAvro(history),
    turn: t && {
      turnId: t.turnId,
      toolName: t.toolName,
      argsHash: t.argsHash,
      toolCallId: t.toolCallId ?? null,
      detector: t.detector,
      count: t.count,
      pairedToolName: t.pairedToolName ?? null,
      evidence: evidenceToAvro(t.evidence),
      vetoes: t.vetoes,
      calls: [...t.calls],
    },
  };
}

function profileFromAvro(p: AvroRun['profile']): ProfileRun | null {
  if (p === null || p === undefined) return null;
  const t = p.turn;
  return {
    criticalSeen: p.criticalSeen,
    turn: t && {
      turnId: t.turnId,
      toolName: t.toolName,
      argsHash: t.argsHash,
      toolCallId: orUndefined(t.toolCallId),
      detector: t.detector as Detector,
      count: t.count,
      pairedToolName: orUndefined(t.pairedToolName),
      evidence: evidenceFromAvro(t.evidence),
      vetoes: t.vetoes,
      calls: [...t.calls],
    },
  };
}

const tallyToAvro = (t: Tally): AvroTally => ({ count: t.count, since: t.since, toolCallIds: [...t.toolCallIds] });
const tallyFromAvro = (t: AvroTally): Tally => ({ count: t.count, since: t.since, toolCallIds: [...t.toolCallIds] });

const spentToAvro = (s: Spent | null): AvroRun['spent'] => s && { all: s.all && tallyToAvro(s.all), tools: s.tools.map(([key, tally]) => ({ key, tally: tallyToAvro(tally) })) };
const spentFromAvro = (s: AvroRun['spent']): Spent | null => s && { all: s.all && tallyFromAvro(s.all), tools: s.tools.map((t) => [t.key, tallyFromAvro(t.tally)] as const) };

function guardFromAvro(g: NonNullable<AvroRun['guard']>): RunState['guard'] {
  // A guard written before windowEvents existed restores with unknown ids and ts 0.
  return {
    remaining: g.remaining,
    window: g.window.map((triple, i) => ({ triple, toolCallId: orUndefined(g.windowEvents[i]?.toolCallId ?? null), ts: g.windowEvents[i]?.ts ?? 0 })),
  };
}

const SEEN_SEPARATOR = '\u0000';

const seenToAvro = (seen: RunState['seen']): AvroRun['eventIds'] =>
  mapIds(seen, (key, verdict) => {
    const at = key.indexOf(SEEN_SEPARATOR);
    return { eventType: key.slice(0, at), eventId: key.slice(at + 1), verdict: verdictToAvro(verdict) };
  });
const seenFromAvro = (ids: AvroRun['eventIds']): RunState['seen'] =>
  idsFrom(
    ids.map((x) => [`${x.eventType}${SEEN_SEPARATOR}${x.eventId}`, verdictFromAvro(x.verdict)] as const),
    MAX_EVENT_IDS,
  );

function runToAvro(s: RunState): AvroRun {
  return {
    lastTs: s.lastTs,
    agentId: s.agentId,
    history: s.history.map(recordToAvro),
    guard: s.guard && {
      remaining: s.guard.remaining,
      window: s.guard.window.map((w) => w.triple),
      windowEvents: s.guard.window.map((w) => ({ toolCallId: w.toolCallId ?? null, ts: w.ts })),
    },
    aborted: s.aborted && { count: s.aborted.count, toolName: s.aborted.toolName, detector: s.aborted.detector, evidence: evidenceToAvro(s.aborted.evidence) },
    blocked: s.blocked && { count: s.blocked.count, since: s.blocked.since, toolCallIds: [...s.blocked.toolCallIds] },
    spent: spentToAvro(s.spent),
    warnings: s.warnings.map(([key, count]) => ({ key, count })),
    eventIds: seenToAvro(s.seen),
    profile: profileToAvro(s.profile, s.history),
    early: earlyToAvro(s.history),
  };
}

function runFromAvro(a: AvroRun): RunState {
  return {
    lastTs: a.lastTs,
    agentId: a.agentId,
    history: historyFromAvro(a.history, a.profile?.records, a.early?.records),
    guard: a.guard && guardFromAvro(a.guard),
    aborted: a.aborted && abortedFromAvro(a.aborted),
    blocked: a.blocked && { count: a.blocked.count, since: a.blocked.since, toolCallIds: [...a.blocked.toolCallIds] },
    spent: spentFromAvro(a.spent ?? null),
    warnings: a.warnings.map((w) => [w.key, w.count] as const),
    seen: seenFromAvro(a.eventIds),
    profile: profileFromAvro(a.profile ?? null),
  };
}

export const toolLoopStateCodec = stateCodec<RunState, AvroRun>('tool-loop-state', runToAvro, runFromAvro);

/** A session's state (tool events keyed by session): its runs, its shared history, its event ids. */
interface AvroSession {
  lastTs: number | null;
  runs: Array<{ key: string; state: AvroRun }>;
  history: AvroRecord[];
  /** The facts of the shared records (each names its run). */
  records: AvroFacts[];
  eventIds: AvroRun['eventIds'];
}

const NO_IDS: RunState['seen'] = emptyIds(MAX_EVENT_IDS);

export const sessionStateCodec = stateCodec<SessionState, AvroSession>(
  'tool-loop-session-state',
  (s) => ({
    lastTs: s.lastTs,
    // A run's own ids are the session's: its eventIds are written empty.
    runs: s.runs.map(([key, run]) => ({ key, state: { ...runToAvro(run), eventIds: [] } })),
    history: s.history.map(recordToAvro),
    records: factsToAvro(s.history),
    eventIds: seenToAvro(s.seen),
  }),
  (a) => ({
    lastTs: a.lastTs,
    history: historyFromAvro(a.history, a.records),
    runs: a.runs.map((r) => [r.key, { ...runFromAvro(r.state), seen: NO_IDS }] as const),
    seen: seenFromAvro(a.eventIds),
  }),
);

const botEvidenceToAvro = (e: BotEvidence | null): AvroCooldown['evidence'] => e && { since: e.since, count: e.count, senders: [...e.senders] };
const cooldownToAvro = (c: Cooldown | null): AvroCooldown | null => c && { start: c.start, until: c.until, evidence: botEvidenceToAvro(c.evidence) };
// A cooldown written before §4.5 restores without evidence.
const cooldownFromAvro = (c: AvroCooldown | null): Cooldown | null =>
  c && { start: c.start, until: c.until, evidence: c.evidence && { since: c.evidence.since, count: c.evidence.count, senders: [...c.evidence.senders] } };

const slowToAvro = (s: SlowLoopState | null): AvroSlowLoop | null =>
  s && {
    lastHuman: s.lastHuman,
    counted: s.counted.map(([ts, senderId]) => ({ ts, senderId })),
    cooldown: cooldownToAvro(s.cooldown),
    humanIds: s.humanIds.map(([id, ts]) => ({ id, ts })),
  };
const slowFromAvro = (s: AvroSlowLoop | null): SlowLoopState | null =>
  s && {
    lastHuman: s.lastHuman,
    counted: s.counted.map((e) => [e.ts, e.senderId] as const),
    cooldown: cooldownFromAvro(s.cooldown),
    humanIds: s.humanIds.map((x) => [x.id, x.ts] as const),
  };

export const botLoopStateCodec = stateCodec<ConversationState, AvroConversation>(
  'bot-loop-state',
  (s) => ({
    pairList: [...s.pairs].map(([pairId, p]) => ({
      pairId,
      timestamps: [...p.timestamps],
      cooldown: cooldownToAvro(p.cooldown),
      seen: p.seen.map(([id, ts]) => ({ id, ts })),
      streamTime: p.streamTime,
    })),
    receiverList: [...s.receivers].map(([receiverId, r]) => ({ receiverId, events: r.events.map(([ts, senderId]) => ({ ts, senderId })), cooldown: cooldownToAvro(r.cooldown) })),
    slowLoop: slowToAvro(s.slow),
  }),
  (a) => ({
    pairs: new Map(
      a.pairList.map((p): [string, PairState] => [
        p.pairId,
        {
          timestamps: [...p.timestamps],
          cooldown: cooldownFromAvro(p.cooldown),
          seen: p.seen.map((x) => [x.id, x.ts] as const),
          streamTime: p.streamTime,
        },
      ]),
    ),
    receivers: new Map(
      a.receiverList.map((r): [string, ReceiverState] => [
        r.receiverId,
        {
          events: r.events.map((e) => [e.ts, e.senderId] as const),
          cooldown: cooldownFromAvro(r.cooldown),
        },
      ]),
    ),
    slow: slowFromAvro(a.slowLoop),
  }),
);
