// A tool outcome repeats its call's arguments, so hashing them again doubles the hashing of
// arguments for every call/outcome pair. The memo keeps the arguments and hash of recent calls
// by toolCallId; an outcome whose arguments are equal as JSON values to its call's reuses the
// hash (equal values have the same canonical JSON, so the same hash). A miss only means hashing.
//
// Bounded by the canonical text length of what it holds, so large or hostile arguments cannot
// make it grow: it is a cache, never state, and what it holds never changes a result.
import { MAX_DEPTH } from './canonical.js';

interface Entry {
  readonly toolName: string;
  readonly args: unknown;
  readonly hash: string;
  readonly size: number;
}

/**
 * Characters of canonical text held at most by default, and the most one entry may have. On
 * Kafka an outcome comes when the tool is done, seconds and many other runs' calls later: 1 MB
 * holds the last ~1,000 calls of 1 KB arguments. Replay with parse workers holds less (see
 * cli/replay/parse.ts).
 */
export const MEMO_BUDGET = 1 << 20;
export const MEMO_MAX_ENTRY = 1 << 16;

export class ArgsHashMemo {
  private readonly entries = new Map<string, Entry>();
  private size = 0;

  constructor(private budget = MEMO_BUDGET) {}

  /** Holds at most `chars` from the next call on (and no entry over it). */
  setBudget(chars: number): void {
    this.budget = chars;
  }

  /** Remembers a call's arguments and their hash (`size`: the length of their canonical text). */
  remember(toolCallId: string, toolName: string, args: unknown, hash: string, size: number): void {
    if (size > MEMO_MAX_ENTRY || size > this.budget) return;
    this.forget(toolCallId);
    this.entries.set(toolCallId, { toolName, args, hash, size });
    this.size += size;
    for (const [id] of this.entries) {
      if (this.size <= this.budget) break;
      this.forget(id);
    }
  }

  /** The hash of the call's arguments when `args` equals them; the entry is spent either way. */
  take(toolCallId: string, toolName: string, args: unknown): string | undefined {
    const e = this.entries.get(toolCallId);
    if (e === undefined) return undefined;
    this.forget(toolCallId);
    return e.toolName === toolName && jsonEqual(e.args, args, 0) ? e.hash : undefined;
  }

  private forget(toolCallId: string): void {
    const e = this.entries.get(toolCallId);
    if (e === undefined) return;
    this.entries.delete(toolCallId);
    this.size -= e.size;
  }
}

const isEnumerableOwn = (o: object, k: string): boolean => Object.prototype.propertyIsEnumerable.call(o, k);

const plainProto = (o: object): boolean => {
  const p = Object.getPrototypeOf(o);
  return p === Object.prototype || p === null;
};

/**
 * Equal as JSON values: same strings, finite numbers, booleans and nulls, arrays of equal
 * items, plain objects with the same keys and equal values. Anything else (other prototypes,
 * undefined, NaN, deeper than canonical JSON goes) is unequal, so it is hashed afresh.
 */
export function jsonEqual(a: unknown, b: unknown, depth: number): boolean {
  if (typeof a === 'string' || typeof a === 'boolean') return a === b;
  if (typeof a === 'number') return a === b && Number.isFinite(a);
  if (a === null) return b === null;
  if (typeof a !== 'object' || typeof b !== 'object' || b === null || depth >= MAX_DEPTH) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || Object.getPrototypeOf(a) !== Array.prototype || Object.getPrototypeOf(b) !== Array.prototype || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(b) || !plainProto(a) || !plainProto(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) {
    if (!isEnumerableOwn(b, k) || !jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], depth + 1)) return false;
  }
  return true;
}
