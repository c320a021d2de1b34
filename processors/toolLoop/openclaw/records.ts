// The openclaw profile's history records and the changes the fold makes to a history
// (docs/behaviour.md §6). A record knows more than §2.3's: whether it is a veto, a failure that
// ended an exec (and that failure's identity), whether its outcome made no progress, its run
// (when tool events are keyed by session the history is the session's, shared by its runs), and
// the turn that asked for it. Histories hold these records only for runs that follow the profile.
import { argsKeyOf, hasArgs, type ToolRecord } from '../state.js';

export type RecordKind = 'veto' | 'terminal-exec-failure';

export interface ProfileRecord extends ToolRecord {
  /** The run's key when the history is a session's; undefined when it is the run's own. */
  readonly run: string | undefined;
  readonly kind: RecordKind | undefined;
  readonly failureIdentityHash: string | undefined;
  readonly noProgress: boolean | undefined;
  /** The turn that asked for the call, while it may still be blocked with its turn. */
  readonly turnId: string | undefined;
}

/** Every profile record has all twelve fields, in this order: one shape. */
export function profileRecord(
  toolName: string,
  argsHash: string,
  toolCallId: string | undefined,
  resultHash: string | undefined,
  unknownToolName: string | undefined,
  ts: number,
  run: string | undefined,
  kind: RecordKind | undefined,
  failureIdentityHash: string | undefined,
  noProgress: boolean | undefined,
  turnId: string | undefined,
): ProfileRecord {
  const argsKey = argsKeyOf(argsHash);
  return { toolName, argsHash, argsKey, toolCallId, resultHash, unknownToolName, ts, run, kind, failureIdentityHash, noProgress, turnId };
}

/** A history as the profile reads it (records restored from before the profile read as plain calls). */
export type History = readonly ProfileRecord[];

/** `history` as its newest `size` records. */
export const trimmed = (history: History, size: number): History => (history.length > size ? history.slice(history.length - size) : history);

/** The newest record of `run`, if any. */
export function newestOf(history: History, run: string | undefined): ProfileRecord | undefined {
  for (let i = history.length - 1; i >= 0; i--) if (history[i]!.run === run) return history[i];
  return undefined;
}

/**
 * Whether a call of turn `turnId` continues the turn being decided: the run's newest record is
 * a call of that turn still waiting for its outcome. Such a turn's records are appended without
 * trimming (the host admits every call of a turn before any runs, against the history as the
 * turn began, its earlier calls on top), and the history is trimmed at its next change.
 */
export function continuesTurn(history: History, run: string | undefined, turnId: string | undefined): boolean {
  if (turnId === undefined) return false;
  const newest = newestOf(history, run);
  return newest !== undefined && newest.turnId === turnId && newest.resultHash === undefined && newest.kind === undefined;
}

/** What detection reads for a call: the run's records, of the history as it stands for that call. */
export function runView(history: History, run: string | undefined, size: number, turnId: string | undefined): History {
  const h = continuesTurn(history, run, turnId) ? history : trimmed(history, size);
  // A run's own history (run undefined) is all its records; so is a session's with one run in it (no copy).
  return run === undefined || h.every((r) => r.run === run) ? h : h.filter((r) => r.run === run);
}

/** The most records a history holds while a turn is open (a turn may ask for many calls). */
export const MAX_OPEN_HISTORY = 1000;

/**
 * A call's record appended. A call of a turn goes on top of the history as the turn began (its
 * first call trims it, later ones do not); any other call trims as it is appended.
 */
export function appendTo(history: History, record: ProfileRecord, size: number, continuing: boolean): History {
  const turn = record.turnId !== undefined;
  // The newest `keep` records of the history, then this one, copied once into an array of the exact size.
  const keep = Math.min(history.length, turn ? (continuing ? MAX_OPEN_HISTORY - 1 : size) : Math.max(0, size - 1));
  const from = history.length - keep;
  const next = new Array<ProfileRecord>(keep + 1);
  for (let i = 0; i < keep; i++) next[i] = history[from + i]!;
  next[keep] = record;
  return next;
}

/**
 * An outcome's record: attached to the run's newest call with the same tool and arguments (and
 * the same toolCallId, when the outcome has one) that has no outcome yet; else appended. Then
 * trimmed.
 */
export function attachTo(history: History, outcome: ProfileRecord, size: number): History {
  for (let i = history.length - 1; i >= 0; i--) {
    const r = history[i]!;
    if (r.run !== outcome.run || r.resultHash !== undefined || r.kind !== undefined) continue;
    if (outcome.toolCallId !== undefined && r.toolCallId !== outcome.toolCallId) continue;
    if (!hasArgs(r, outcome.argsKey, outcome.argsHash) || r.toolName !== outcome.toolName) continue;
    const next = history.slice();
    next[i] = profileRecord(
      r.toolName,
      r.argsHash,
      r.toolCallId,
      outcome.resultHash,
      outcome.unknownToolName,
      r.ts,
      r.run,
      outcome.kind,
      outcome.failureIdentityHash,
      outcome.noProgress,
      undefined,
    );
    return trimmed(next, size);
  }
  const next = history.slice();
  next.push(outcome);
  return trimmed(next, size);
}

/** The history with the run's records of `turnId` replaced by `vetoes`, appended; then trimmed. */
export function rewriteTurn(history: History, run: string | undefined, turnId: string, vetoes: readonly ProfileRecord[], size: number): History {
  const next = history.filter((r) => r.run !== run || r.turnId !== turnId);
  for (const v of vetoes) next.push(v);
  return trimmed(next, size);
}
