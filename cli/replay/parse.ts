// What happens to input before the fold: lines, JSON, then the topology's validation and
// hashing. Pure and config-free, so it runs the same on the main thread or in a worker.
import { route, type Routed, type Topology } from '../../topology/topology.js';
import { splitLines } from './batches.js';

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

/** One result per line of the chunk, blank lines included (as null), so line numbers hold. */
export function parseChunk(topology: Topology, chunk: Uint8Array): ParsedLine[] {
  return splitLines(chunk).map((text) => parseLine(topology, text));
}
