// A model turn as OpenClaw shows it to a plugin. OpenClaw writes the assistant message that asks
// for a turn's tool calls (`before_message_write`) before it admits any of them, and then fires
// `before_tool_call` for every call of the turn, one after the other, before it runs any
// (2026.9.6's two-phase execution). A hook cannot take back an answer it gave, so the plugin
// learns the whole turn from the message and decides it at the turn's first hook, all of it
// at once (docs/behaviour.md §6.4); every later hook of the turn reads its call's verdict.
import { isPlainObject } from '../../processors/toolLoop/hashing.js';
import { dispatchTarget, isDispatcher, TOOL_CALL, type ModelCall } from './dispatch.js';

/** The guarded calls an assistant message asks for, in its order (none when it asks for no tool). */
export function callsOf(message: unknown): ModelCall[] {
  if (!isPlainObject(message) || message.role !== 'assistant' || !Array.isArray(message.content)) return [];
  const calls: ModelCall[] = [];
  for (const block of message.content as unknown[]) {
    if (!isPlainObject(block) || block.type !== 'toolCall' || typeof block.id !== 'string' || typeof block.name !== 'string') continue;
    const args = block.arguments ?? {};
    if (block.name === TOOL_CALL) {
      const target = dispatchTarget(args);
      if (target !== undefined) calls.push({ toolCallId: block.id, ...target });
    } else if (!isDispatcher(block.name)) calls.push({ toolCallId: block.id, toolName: block.name, args });
  }
  return calls;
}

const sameCalls = (a: readonly ModelCall[], b: readonly ModelCall[]): boolean => a.length === b.length && a.every((c, i) => c.toolCallId === b[i]!.toolCallId);

/** A turn the model asked for: its calls, and their verdicts once the first of its hooks asked. */
export interface PlannedTurn<V> {
  readonly turnId: string;
  readonly calls: readonly ModelCall[];
  decided?: Promise<ReadonlyMap<string, V>>;
}

/**
 * The turns planned, the newest per session (OpenClaw runs one turn of a session at a time),
 * at most `max` sessions: the least recently planned is forgotten first.
 */
export class Turns<V> {
  private readonly bySession = new Map<string, PlannedTurn<V>>();

  constructor(private readonly max = 4096) {}

  /** A message written again (same calls) keeps its turn, and the decisions made for it. */
  plan(sessionKey: string, turn: PlannedTurn<V>): void {
    const current = this.bySession.get(sessionKey);
    if (current !== undefined && sameCalls(current.calls, turn.calls)) return;
    this.bySession.delete(sessionKey);
    if (this.bySession.size >= this.max) this.bySession.delete(this.bySession.keys().next().value!);
    this.bySession.set(sessionKey, turn);
  }

  /** The session's planned turn that holds the call, if any. */
  of(sessionKey: string, toolCallId: string): PlannedTurn<V> | undefined {
    const t = this.bySession.get(sessionKey);
    return t?.calls.some((c) => c.toolCallId === toolCallId) === true ? t : undefined;
  }

  forget(sessionKey: string): void {
    this.bySession.delete(sessionKey);
  }
}
