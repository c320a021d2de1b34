// How the openclaw profile hashes an outcome (docs/behaviour.md §6): as openclaw@2026.9.6 does,
// which differs from §2.2 in the places listed there. Computed when an event is parsed, beside
// §2.2's hash, only when the config selects the profile; runners that hash themselves send the
// same facts in the outcome's `openclaw` field (`openclawOutcome` is public, as hashOutcome is).
import { isRecord as isPlainObject } from '../../kernel/contract.js';
import { canonicalJson } from '../canonical.js';
import { isOutboundSend, stripVolatile } from '../hashRules.js';
import { profileToolName } from './names.js';
import { outcomeDigest, zeroNonces } from './nonces.js';

/** An outcome as the profile sees it. Absent altogether: nothing to record. */
export interface OpenclawOutcome {
  /** Absent for a veto (and only then). */
  readonly resultHash?: string;
  /** A failure that ends an exec, hashed with its volatile parts masked. */
  readonly failureIdentityHash?: string;
  /** An error, or a `write` that changed nothing: what argument churn counts. */
  readonly noProgress?: boolean;
  readonly unknownToolName?: string;
  /** The host's own tool-loop block echoed back (`status: blocked`, `deniedReason: tool-loop`). */
  readonly veto?: boolean;
}

export interface OpenclawOutcomeInput {
  /** The tool as the runner named it; the profile's name is derived from it. */
  readonly toolName: string;
  readonly args?: unknown;
  readonly action?: string;
  readonly result?: unknown;
  readonly error?: unknown;
}

/** The profile's facts about an outcome, or undefined when it carries nothing to record. */
export function openclawOutcome(o: OpenclawOutcomeInput): OpenclawOutcome | undefined {
  const name = profileToolName(o.toolName);
  if (o.error !== undefined && o.error !== null) return errorOutcome(o.error);
  if (o.result === undefined) return undefined;
  if (!isPlainObject(o.result)) return { resultHash: outcomeDigest(o.result) };
  const details: Record<string, unknown> = isPlainObject(o.result.details) ? o.result.details : {};
  const text = contentText(o.result);
  if (details.status === 'blocked' && details.deniedReason === 'tool-loop') return { veto: true };
  const action = actionOf(o.args, o.action);
  if (name === 'exec') {
    const exec = execOutcome(details, text);
    if (exec !== undefined) return exec;
  }
  if (name === 'write' && details.changed === false) return { resultHash: UNCHANGED, noProgress: true };
  if (name === 'process' && (action === 'poll' || action === 'log')) return { resultHash: outcomeDigest(processShape(action, details, text)) };
  if (isSendLike(name, o.args, action)) return { resultHash: outcomeDigest(stripVolatile(details, 1)) };
  return { resultHash: outcomeDigest({ details, text }) };
}

/** `write` that changed nothing: one fixed hash, whatever the details say. */
const UNCHANGED = outcomeDigest({ status: 'unchanged' });

/** The args' `action` (a string), from raw args or from the event's own `action` field. */
const actionOf = (args: unknown, action: string | undefined): string | undefined => (isPlainObject(args) && typeof args.action === 'string' ? args.action : action);

// ---- errors --------------------------------------------------------------------------------

/**
 * The text of an error as OpenClaw formats a thrown value: an error object's message, or its
 * name when the message is empty; a string as is; a number or boolean in decimal; anything else
 * its canonical JSON.
 */
export function profileErrorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (typeof error === 'number' || typeof error === 'boolean') return String(error);
  if (isPlainObject(error) && (typeof error.message === 'string' || typeof error.name === 'string')) {
    const message = typeof error.message === 'string' ? error.message : '';
    return message !== '' ? message : typeof error.name === 'string' ? error.name : '';
  }
  return canonicalJson(error);
}

// The name in `'` or `"` quotes or none (backquotes are part of no name), any case.
const UNKNOWN_TOOL = [/unknown tool[:\s]+["']?([a-z0-9_.-]+)["']?/i, /tool\s+["']?([a-z0-9_.-]+)["']?\s+(?:not found|is not available)/i];

/** The tool an error text says is missing, lowercased, as the profile reads it. */
export function profileUnknownToolName(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  for (const re of UNKNOWN_TOOL) {
    const m = re.exec(trimmed);
    if (m !== null) return m[1]!.toLowerCase();
  }
  return undefined;
}

function errorOutcome(error: unknown): OpenclawOutcome {
  const text = profileErrorText(error);
  const resultHash = `error:${outcomeDigest(text)}`;
  const unknownToolName = profileUnknownToolName(text);
  return unknownToolName === undefined ? { resultHash, noProgress: true } : { resultHash, noProgress: true, unknownToolName };
}

// ---- results -------------------------------------------------------------------------------

function contentText(result: Record<string, unknown>): string {
  if (!Array.isArray(result.content)) return '';
  const parts: string[] = [];
  for (const item of result.content) if (isPlainObject(item) && typeof item.type === 'string' && typeof item.text === 'string') parts.push(item.text);
  return parts.join('\n').trim();
}

const strOr = <T>(v: unknown, d: T): string | T => (typeof v === 'string' ? v : d);

function execOutcome(d: Record<string, unknown>, text: string): OpenclawOutcome | undefined {
  const status = d.status;
  if (typeof status !== 'string') return undefined;
  switch (status) {
    case 'running':
      return { resultHash: outcomeDigest({ status, tail: strOr(d.tail, '') }) };
    case 'completed':
    case 'failed': {
      const aggregated = typeof d.aggregated === 'string' ? d.aggregated.trim() : '';
      const output = aggregated !== '' ? aggregated : text;
      const exitCode = typeof d.exitCode === 'number' ? d.exitCode : null;
      const resultHash = outcomeDigest({ status, exitCode, timedOut: d.timedOut === true, output });
      return isTerminalFailure(exitCode, d.timedOut, output)
        ? { resultHash, failureIdentityHash: outcomeDigest({ status, exitCode, timedOut: false, output: maskVolatile(output) }) }
        : { resultHash };
    }
    case 'approval-pending':
    case 'approval-unavailable':
      return {
        resultHash: outcomeDigest({ status, reason: strOr(d.reason, null), host: strOr(d.host, null), command: strOr(d.command, ''), warningText: strOr(d.warningText, '') }),
      };
    default:
      return undefined;
  }
}

/** A finished command that failed with something to say (not a bare exit-code line). */
function isTerminalFailure(exitCode: number | null, timedOut: unknown, output: string): exitCode is number {
  return exitCode !== null && Number.isFinite(exitCode) && exitCode !== 0 && timedOut !== true && output !== '' && output !== `(Command exited with code ${exitCode})`;
}

/**
 * The parts of a failure's output that differ between two runs of the same failure: ISO-style
 * date-times, clock times, the numbers after "attempt"/"retry" and "pid"/"ppid", and durations.
 * Each is replaced by `#`, in this order. (`u` keeps `\d` and `\b` to ASCII, as OpenClaw's do.)
 * Each pattern runs only where a cheaper one, without `\b` and Unicode case folding, finds what
 * any of its matches must contain: the `\b` patterns cost ~35 µs per 4 KB of output each.
 */
const VOLATILE: ReadonlyArray<readonly [needs: RegExp, pattern: RegExp]> = [
  [/:/, /\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?(?:z|[+-]\d{2}:\d{2})?/giu],
  [/:/, /\d{1,2}:\d{2}:\d{2}(?:\.\d{1,6})?/gu],
  // Only ASCII letters fold to these under `iu`, as under `i`.
  [/attempt|retry/i, /\b(?:attempt|retry)\b[\s#:=]*\d+/giu],
  // A unit's first letter; `iu` also folds ſ (U+017F) to s, which `i` does not.
  [/\d(?:\.\d+)?\s?[nsumhſ]/i, /\b\d+(?:\.\d+)?\s?(?:ns|us|ms|seconds?|minutes?|hours?|s)\b/giu],
  [/pid/i, /\b(?:pid|ppid)\b[\s#:=]*\d+/giu],
];

export function maskVolatile(output: string): string {
  let out = output;
  for (const [needs, pattern] of VOLATILE) if (needs.test(out)) out = out.replace(pattern, '#');
  return out;
}

function processShape(action: 'poll' | 'log', d: Record<string, unknown>, text: string): Record<string, unknown> {
  // `status` as it is (absent stays absent, which canonical JSON writes as `undefined`); the others null when absent.
  const n = (v: unknown): unknown => v ?? null;
  return action === 'poll'
    ? { action, status: d.status, exitCode: n(d.exitCode), exitSignal: n(d.exitSignal), aggregated: n(d.aggregated), text }
    : { action, status: d.status, totalLines: n(d.totalLines), totalChars: n(d.totalChars), truncated: n(d.truncated), exitCode: n(d.exitCode), exitSignal: n(d.exitSignal), text };
}

// ---- sends ---------------------------------------------------------------------------------

/** Sends whatever their arguments: sessions and conversations. */
const SEND_TOOLS = new Set(['sessions_send', 'conversations_send', 'conversations_turn']);

/** §2.2 rule 7's sends (`isOutboundSend`), and the conversation sends the profile adds. */
const isSendLike = (name: string, args: unknown, action: string | undefined): boolean => SEND_TOOLS.has(name) || isOutboundSend(name, args, action);

export { zeroNonces };
