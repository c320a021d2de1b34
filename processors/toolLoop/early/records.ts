// The early preset's history (docs/behaviour.md §7.4): one record per call of the run that was
// not blocked, its `historySize` newest. A record is §2.3's with its fields read the preset's
// way — `argsHash` is the call's identity (§7.2), `resultHash` its outcome's progress hash
// (§7.3), `ts` its call's time — and knows more: when its outcome came, the turn that asked for
// it, whether it is a poll, a duplicate of a call of its turn, a transient failure, and whether
// its outcome was stale (the same as the one before it, without a wait in between).
import { argsKeyOf, hasArgs, type ToolRecord } from '../state.js';

export interface EarlyRecord extends ToolRecord {
  /** Event time of its outcome; undefined while the call waits for it. */
  readonly outcomeTs: number | undefined;
  readonly turnId: string | undefined;
  /** A poll call (§2.4 known polls, §4.3 `poll`): waits are measured from the earlier call. */
  readonly poll: boolean;
  /** A call of a turn identical to one of the same turn still waiting: it counts once, as that one. */
  readonly duplicate: boolean;
  /** Its outcome was a transient failure (§4.4): no progress hash, never stale. */
  readonly transient: boolean;
  /** Its outcome repeated the progress hash of the newest earlier record of its identity that had one, without a wait. */
  readonly stale: boolean;
}

/** Every early record has all thirteen fields, in this order: one shape. */
export function earlyRecord(
  toolName: string,
  identity: string,
  toolCallId: string | undefined,
  progressHash: string | undefined,
  unknownToolName: string | undefined,
  ts: number,
  outcomeTs: number | undefined,
  turnId: string | undefined,
  poll: boolean,
  duplicate: boolean,
  transient: boolean,
  stale: boolean,
  argsKey = argsKeyOf(identity),
): EarlyRecord {
  return { toolName, argsHash: identity, argsKey, toolCallId, resultHash: progressHash, unknownToolName, ts, outcomeTs, turnId, poll, duplicate, transient, stale };
}

export type History = readonly EarlyRecord[];

const isEarly = (r: ToolRecord): r is EarlyRecord => (r as Partial<EarlyRecord>).duplicate !== undefined;

/**
 * The preset's records of a history. A run follows the preset from the event that names its
 * agent on: records kept before under other rules (older, so first) are not the preset's.
 */
export function earlyHistory(history: readonly ToolRecord[]): History {
  return history.length === 0 || isEarly(history[0]!) ? (history as History) : history.filter(isEarly);
}

/** The minimum wait, in event time, after which the same outcome again is not stale (§7.4). */
export const RECHECK_AFTER_MS = 30_000;

/** Whether a call at `ts` waited long enough after `earlier` (from its call for a poll, else from its outcome). */
export const waited = (earlier: EarlyRecord, ts: number, poll: boolean): boolean => ts - (poll ? earlier.ts : (earlier.outcomeTs ?? earlier.ts)) >= RECHECK_AFTER_MS;

export const isWaiting = (r: EarlyRecord): boolean => r.outcomeTs === undefined;

/** The record of an identity: the same identity and tool. */
export const sameIdentity = (r: EarlyRecord, toolName: string, argsKey: number, identity: string): boolean => hasArgs(r, argsKey, identity) && r.toolName === toolName;

/** The newest record before `before` of this identity that has a progress hash; its index or -1. */
export function lastProgress(h: History, before: number, toolName: string, argsKey: number, identity: string): number {
  for (let i = before - 1; i >= 0; i--) {
    const r = h[i]!;
    if (r.resultHash !== undefined && sameIdentity(r, toolName, argsKey, identity)) return i;
  }
  return -1;
}

/** The newest record of a turn with this identity still waiting for its outcome (a duplicate's original), or undefined. */
export function waitingInTurn(h: History, turnId: string, toolName: string, argsKey: number, identity: string): EarlyRecord | undefined {
  for (let i = h.length - 1; i >= 0; i--) {
    const r = h[i]!;
    if (r.turnId === turnId && isWaiting(r) && sameIdentity(r, toolName, argsKey, identity)) return r;
  }
  return undefined;
}

/** `history` with `record` appended, as its newest `size` records, copied once into an array of the exact size. */
export function appendTo(history: History, record: EarlyRecord, size: number): History {
  const keep = Math.min(history.length, Math.max(0, size - 1));
  const from = history.length - keep;
  const next = new Array<EarlyRecord>(keep + 1);
  for (let i = 0; i < keep; i++) next[i] = history[from + i]!;
  next[keep] = record;
  return next;
}

/** Where an outcome attaches: the newest waiting record of its identity (and its toolCallId, when it has one); -1: none. */
export function attachIndex(h: History, toolName: string, argsKey: number, identity: string, toolCallId: string | undefined): number {
  for (let i = h.length - 1; i >= 0; i--) {
    const r = h[i]!;
    if (!isWaiting(r) || !sameIdentity(r, toolName, argsKey, identity)) continue;
    if (toolCallId !== undefined && r.toolCallId !== toolCallId) continue;
    return i;
  }
  return -1;
}
