// Call identity (docs/behaviour.md §7.1, §7.2): which calls are the same call. A loopKey (from
// the config, the event, or an MCP server's tool definition) names the top-level argument fields
// that count; every profile hashes a call's arguments restricted to them. The early preset
// compares calls by their identity: the tool and those arguments normalised, so arguments that
// differ only in case, spacing, a trailing `?` or the spelling of a path are one call.
import { isRecord as isPlainObject } from '../../kernel/contract.js';
import { MAX_DEPTH } from '../canonical.js';
import { hashValue } from '../hashRules.js';
import type { LoopKey } from '../policy.js';

/**
 * `args` restricted to the fields `loopKey` names (absent ones omitted), or `args` as they are
 * when they are not an object (they have no fields to pick: the whole value identifies the call).
 */
export function keyedArgs(args: unknown, loopKey: readonly string[]): unknown {
  if (!isPlainObject(args)) return args;
  // No prototype: a field named `__proto__` is a field like any other.
  const out = Object.create(null) as Record<string, unknown>;
  for (const k of loopKey) if (Object.hasOwn(args, k)) out[k] = args[k];
  return out;
}

/** `<toolName>:` + the hash of the args, restricted to `loopKey` when it names fields (§7.1). */
export function keyedArgsHash(toolName: string, args: unknown, loopKey: Readonly<LoopKey> | undefined): string {
  return `${toolName}:${hashValue(Array.isArray(loopKey) ? keyedArgs(args, loopKey) : args)}`;
}

/** The early preset's identity of a call: `<toolName>:` + the hash of its identity arguments, normalised. */
export function callIdentity(toolName: string, args: unknown, loopKey: Readonly<LoopKey> | undefined): string {
  return `${toolName}:${hashValue(normalised(Array.isArray(loopKey) ? keyedArgs(args, loopKey) : args, 0))}`;
}

const isEndMark = (c: number): boolean => c === 63 /* ? */ || c === 33 /* ! */ || c === 46; /* . */

/**
 * A string as the identity reads it: trimmed, each run of whitespace one space, lowercased,
 * trailing `?`, `!` and `.` removed; and when it holds a `/` (a path or URL), a leading `./`
 * removed, each run of `/` one `/`, and a trailing `/` removed. Each step is one linear pass
 * (a regex whose every match starts where the last one ended), whatever the string holds.
 */
export function normalisedString(s: string): string {
  let out = s.trim().replace(/\s+/g, ' ').toLowerCase();
  let end = out.length;
  while (end > 0 && isEndMark(out.charCodeAt(end - 1))) end--;
  if (end < out.length) out = out.slice(0, end);
  if (!out.includes('/')) return out;
  if (out.startsWith('./')) out = out.slice(2);
  out = out.replace(/\/{2,}/g, '/');
  return out.endsWith('/') ? out.slice(0, -1) : out;
}

/** `value` with every string normalised, through arrays and objects (keys as they are). */
function normalised(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return normalisedString(value);
  if (typeof value !== 'object' || value === null) return value;
  // As canonical JSON counts depth: an array or object at MAX_DEPTH is too deep to hash.
  if (depth >= MAX_DEPTH) throw new RangeError(`nests deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) return value.map((v) => normalised(v, depth + 1));
  const out = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(value)) out[k] = normalised(v, depth + 1);
  return out;
}
