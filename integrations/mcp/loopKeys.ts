// Call identity from the MCP server (docs/behaviour.md §7.1): a tool definition may say which of
// its arguments make two calls the same call, in its `_meta` — `openrouter/loopKey`, the key
// OpenRouter's agent SDK reads (an array of argument names, or false: never the same call), or
// loopguard's own `loopguard/loopKey`, which wins. The proxy learns them from the `tools/list`
// answers it forwards, and sends each call's with it.
import { MAX_LOOP_KEY_FIELD_LENGTH, MAX_LOOP_KEY_FIELDS, type LoopKey } from '../../processors/toolLoop/policy.js';

export const LOOPGUARD_LOOP_KEY = 'loopguard/loopKey';
export const OPENROUTER_LOOP_KEY = 'openrouter/loopKey';

/** Tools a session remembers loopKeys for: a server listing more is a server listing too many. */
export const MAX_KEYED_TOOLS = 4096;

const isLoopKey = (v: unknown): v is LoopKey =>
  v === false || (Array.isArray(v) && v.length <= MAX_LOOP_KEY_FIELDS && v.every((k) => typeof k === 'string' && k.length <= MAX_LOOP_KEY_FIELD_LENGTH && k.isWellFormed()));

const own = (o: object, k: string): unknown => (Object.hasOwn(o, k) ? (o as Record<string, unknown>)[k] : undefined);

/** A tool definition's loopKey: loopguard's own, else OpenRouter's; a malformed one is none. */
export function loopKeyOfTool(tool: unknown): LoopKey | undefined {
  if (typeof tool !== 'object' || tool === null) return undefined;
  const meta = own(tool, '_meta');
  if (typeof meta !== 'object' || meta === null) return undefined;
  const ours = own(meta, LOOPGUARD_LOOP_KEY);
  if (isLoopKey(ours)) return ours;
  const theirs = own(meta, OPENROUTER_LOOP_KEY);
  return isLoopKey(theirs) ? theirs : undefined;
}

/** The loopKeys of one session's server, by tool name, as its latest `tools/list` gave them. */
export class ToolLoopKeys {
  private byName = new Map<string, LoopKey>();

  /** Reads one page of a `tools/list` answer; the first page (no cursor asked) starts the list afresh. */
  learn(params: Record<string, unknown> | undefined, result: unknown): void {
    if (params?.cursor === undefined) this.byName = new Map();
    const tools = typeof result === 'object' && result !== null ? own(result, 'tools') : undefined;
    if (!Array.isArray(tools)) return;
    for (const tool of tools) {
      const name = typeof tool === 'object' && tool !== null ? own(tool, 'name') : undefined;
      const key = loopKeyOfTool(tool);
      if (typeof name !== 'string' || key === undefined || this.byName.size >= MAX_KEYED_TOOLS) continue;
      this.byName.set(name, key);
    }
  }

  of(toolName: string): LoopKey | undefined {
    return this.byName.get(toolName);
  }
}
