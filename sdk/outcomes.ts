// Outcomes as the runner publishes them. What a framework's tool returned, made into a result of
// which every part reaches the hash (docs/behaviour.md §2.2); and whether an outcome the runner
// hashes locally is transient (§4.4).
import type { ErrorObject, ErrorValue } from '../processors/kernel/contract.js';
import { isGatewayShaped, isPlainObject } from '../processors/toolLoop/hashing.js';
import { isTransient } from '../processors/toolLoop/transient.js';

/**
 * A host's own tool-loop block, as an agent gateway reports a call its detector vetoed
 * (`details.status: 'blocked'`, `details.deniedReason: 'tool-loop'`, docs/behaviour.md §6.3):
 * not an outcome of the tool, but a veto of the call.
 */
export function isHostVeto(result: unknown): boolean {
  if (!isPlainObject(result) || !isPlainObject(result.details)) return false;
  return result.details.status === 'blocked' && result.details.deniedReason === 'tool-loop';
}

/**
 * A tool's own result (any value a framework or an MCP server returns) as the `result` to publish,
 * so that everything in it reaches the hash. §2.2 reads a plain object with a `content` or
 * `details` key as an agent gateway's `{content, details}`, of which only the text blocks and
 * `details` count: such a result is published as `{value: result}`, which is hashed whole (rule
 * 2). Anything else is published as it is: rule 2 hashes it whole already.
 */
export function wholeResult(result: unknown): unknown {
  return isPlainObject(result) && isGatewayShaped(result) ? { value: result } : result;
}

// A hashed outcome reaches loopguard as a `resultHash`, which only rule 1 of §4.4 (the explicit
// flag) can make transient, so the runner judges rules 2–3 here with the processor's own rules,
// on the raw error it never sends, and sends the result as the flag. The caller's own flag
// always wins.

const ownString = (o: object, k: string): string | undefined => {
  const v = (o as Record<string, unknown>)[k];
  return typeof v === 'string' ? v : undefined;
};
const ownNumber = (o: object, k: string): number | undefined => {
  const v = (o as Record<string, unknown>)[k];
  return typeof v === 'number' ? v : undefined;
};

/** The error as loopguard would read it off the wire: text, a number, boolean or array, or `{name, message, status, statusCode, code}`. */
function wireError(error: unknown): ErrorValue | undefined {
  if (error === undefined || error === null) return undefined;
  if (typeof error === 'string' || typeof error === 'boolean' || (typeof error === 'number' && Number.isFinite(error)) || Array.isArray(error)) return error as ErrorValue;
  if (typeof error !== 'object') return String(error);
  const picked = {
    name: ownString(error, 'name'),
    message: ownString(error, 'message'),
    status: ownNumber(error, 'status'),
    statusCode: ownNumber(error, 'statusCode'),
    code: ownString(error, 'code'),
  };
  return Object.fromEntries(Object.entries(picked).filter(([, v]) => v !== undefined)) as ErrorObject;
}

/**
 * The `transient` flag to publish with a hashed outcome: the caller's, else true when §4.4
 * rules 2–3 find the error transient, else none.
 */
export function hashedTransientFlag(outcome: { result?: unknown; error?: unknown; transient?: boolean }, unknownTool: boolean): boolean | undefined {
  if (outcome.transient !== undefined) return outcome.transient;
  const error = wireError(outcome.error);
  if (error === undefined) return undefined;
  const result = outcome.result ?? undefined; // null counts as absent (§1)
  return isTransient({ error, result }, unknownTool) ? true : undefined;
}
