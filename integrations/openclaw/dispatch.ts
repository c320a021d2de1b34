// OpenClaw's Tool Search (its default for embedded runs) puts most tools behind dispatcher
// tools: the model calls `tool_call {id, args}` and OpenClaw runs the tool `id` names as an
// inner call of its own (`tool_search_code:<outer id>:<tool>:<n>`), so both hooks fire twice.
// The dispatchers are not guarded themselves: the call the model made through `tool_call` is
// its target, decided under the model's own toolCallId; `tool_search` and `tool_describe` only
// look tools up; the calls a `tool_search_code` script makes are guarded one by one.
import { isPlainObject } from '../../processors/toolLoop/hashing.js';

/** The dispatcher that calls one catalog tool for the model. */
export const TOOL_CALL = 'tool_call';
const CODE = 'tool_search_code';
const DISPATCHERS: ReadonlySet<string> = new Set([TOOL_CALL, 'tool_search', 'tool_describe', CODE]);

/** Whether a tool is one of Tool Search's dispatchers (never guarded itself). */
export const isDispatcher = (toolName: string): boolean => DISPATCHERS.has(toolName);

/** The call a model's call is guarded as: its tool, its arguments, its id. */
export interface ModelCall {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly args: unknown;
}

/**
 * The tool a `tool_call` names and the arguments it passes: `id` is a catalog id
 * (`<source>:<source name>:<tool>`, e.g. `mcp:github:github__create_issue`) or the tool's name;
 * absent `args` is `{}` as OpenClaw passes it. Undefined when `id` is not a string (OpenClaw
 * refuses that call itself).
 */
export function dispatchTarget(params: unknown): { readonly toolName: string; readonly args: unknown } | undefined {
  if (!isPlainObject(params) || typeof params.id !== 'string') return undefined;
  const id = params.id.trim();
  const catalogId = /^[^:]*:[^:]*:(.+)$/.exec(id);
  return { toolName: catalogId?.[1] ?? id, args: params.args ?? {} };
}

/** The part of an outer toolCallId OpenClaw puts into its inner calls' ids (its own sanitising, as 2026.9.6 does it). */
const idPart = (id: string): string =>
  id
    .trim()
    .replace(/[^A-Za-z0-9_.:-]+/g, '_')
    .slice(0, 120) || 'call';

/** Whether a toolCallId is that of a call a dispatcher made. */
export const isInnerCall = (toolCallId: string): boolean => toolCallId.startsWith(`${CODE}:`);

/** Of the dispatcher calls in flight, the one whose inner call `innerId` is (the longest match), if any. */
export function parentOf(innerId: string, outerIds: Iterable<string>): string | undefined {
  let best: string | undefined;
  for (const outer of outerIds) {
    const prefix = `${CODE}:${idPart(outer)}:`;
    if (innerId.startsWith(prefix) && (best === undefined || prefix.length > idPart(best).length + CODE.length + 2)) best = outer;
  }
  return best;
}
