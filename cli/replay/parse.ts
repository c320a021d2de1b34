// What happens to input before the fold: lines, JSON, then the topology's validation and
// hashing. Pure and config-free, so it runs the same on the main thread or in a worker.
import { setArgsMemoBudget } from '../../processors/toolLoop/events.js';
import { route, type Routed, type Topology } from '../../topology/topology.js';

/**
 * The hashing memo's budget, in characters, on each thread while chunks are parsed on more than
 * one. An outcome's hash is taken from its call's when the same thread parsed the call, and in
 * a file an outcome mostly follows its call within a few lines; but a pair that chunks split
 * between two threads leaves the call's entry behind until the budget pushes it out, so the
 * memos filled up over the input, each entry holding its parsed arguments. With the default
 * 1 MB, replay's max RSS with a worker was 3-5 MB higher at 1M events than with this (bench/README.md,
 * issue 11).
 */
export const SPLIT_MEMO_CHARS = 128 << 10;

/** Called on every thread that parses, once parsing is split between threads. */
export function splitParsing(): void {
  setArgsMemoBudget(SPLIT_MEMO_CHARS);
}

export type ParsedLine =
  | { readonly ok: true; readonly node: number; readonly event: unknown }
  | { readonly ok: false; readonly reason: string }
  /** A blank line: skipped. */
  | null;

export function parseLine(topology: Topology, text: string): ParsedLine {
  const r = routeLine(topology, text);
  return r === null || !r.ok ? r : { ok: true, node: topology.nodes.indexOf(r.node), event: r.event };
}

/** `parseLine` for the thread that folds: the node itself, so no index and no second result object. */
export function routeLine(topology: Topology, text: string): Routed | null {
  if (text.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, reason: `not valid JSON (${(e as Error).message})` };
  }
  return route(topology, value);
}

/**
 * One result per line of the chunk, blank lines included (as null), so line numbers hold. The
 * lines of `splitLines`, each decoded on its own: a line's text is garbage once it is parsed,
 * where one string of the whole chunk stayed alive (and was copied by every scavenge) until the
 * chunk's last line was parsed. A newline byte is never part of a UTF-8 sequence, so each line
 * decodes to the same text either way (a sequence cut short by it is one U+FFFD both ways).
 */
export function parseChunk(topology: Topology, chunk: Uint8Array): ParsedLine[] {
  const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  const out: ParsedLine[] = [];
  for (let start = 0; start < bytes.length;) {
    const newline = bytes.indexOf(10, start);
    const end = newline === -1 ? bytes.length : newline;
    out.push(parseLine(topology, bytes.toString('utf8', start, end > start && bytes[end - 1] === 13 ? end - 1 : end)));
    start = end + 1;
  }
  return out;
}
