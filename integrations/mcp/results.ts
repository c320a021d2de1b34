// What the proxy says to the client, and what it publishes as a call's outcome: pure shaping of
// MCP results, so every message is specified without a server.
import { hashValue } from '../../processors/toolLoop/hashing.js';
import { wholeResult } from '../../sdk/outcomes.js';
import type { ToolOutcome } from '../../sdk/runner.js';
import type { UpstreamCommand, UpstreamExit } from './upstream.js';

export interface TextContent {
  readonly type: 'text';
  readonly text: string;
}

/** The part of a `tools/call` result the proxy reads; everything else passes through untouched. */
export interface ToolResult {
  readonly content?: readonly unknown[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
  readonly [key: string]: unknown;
}

/** A blocked call: the model reads loopguard's message as the tool's (failed) result. */
export function blockedResult(message: string): ToolResult & { content: TextContent[] } {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

/** The call's own result with loopguard's warning added as one more text block at the end. */
export function withWarning(result: ToolResult, message: string): ToolResult {
  return { ...result, content: [...(result.content ?? []), { type: 'text', text: message }] };
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (c: unknown): c is Obj => isObject(c) && c.type === 'text';

/** `value` without its `_meta` key. */
function withoutMeta(value: Obj): Obj {
  if (!Object.hasOwn(value, '_meta')) return value;
  const { _meta, ...rest } = value;
  return rest;
}

/** A content block without `_meta`, nor the `_meta` of the resource it embeds. */
function blockOf(block: unknown): unknown {
  if (!isObject(block)) return block;
  const b = withoutMeta(block);
  return b.type === 'resource' && isObject(b.resource) ? { ...b, resource: withoutMeta(b.resource) } : b;
}

/**
 * What a result says, for the outcome: every field the server sent (content blocks of every kind —
 * image and audio data, embedded resources, resource links —, `structuredContent`, fields newer
 * than this SDK) but `isError`, and `_meta` at the levels MCP defines it (the result, a block, an
 * embedded resource), which servers use for per-call data that says nothing about progress.
 */
function meaningOf(result: ToolResult): Obj {
  const { _meta, isError: _isError, ...rest } = result;
  return Array.isArray(rest.content) ? { ...rest, content: rest.content.map(blockOf) } : rest;
}

/**
 * The error text of a result the server marked `isError`: its text blocks, and when it carries
 * anything else, one more line with the hash of the rest, so a change there is a change of
 * error (a hash, not the data: only the text is searched for the words of §4.4).
 */
function errorTextOf(meaning: Obj): string {
  const content = Array.isArray(meaning.content) ? meaning.content : [];
  const text = content
    .filter(isText)
    .map((c) => String(c.text))
    .filter((t) => t !== '')
    .join('\n');
  const rest = { ...meaning, content: content.filter((c) => !isText(c)) };
  const more = rest.content.length > 0 || Object.keys(rest).length > 1 ? `[non-text content ${hashValue(rest)}]` : '';
  return [text, more].filter((t) => t !== '').join('\n') || 'the tool reported an error without text';
}

/**
 * The outcome to publish for a call that ran. A result the server marked `isError` is an error
 * whose message is its text (so loopguard judges it transient or not by its rules, §4.4); any
 * other result is published whole (see `meaningOf`), so any change in it is progress.
 */
export function outcomeOfResult(result: ToolResult): ToolOutcome {
  const meaning = meaningOf(result);
  if (result.isError === true) return { error: { message: errorTextOf(meaning) } };
  return { result: wholeResult(meaning) };
}

/** The outcome to publish for a call the server answered with a JSON-RPC error. */
export function outcomeOfError(error: unknown): ToolOutcome {
  return { error: { message: error instanceof Error ? error.message : String(error) } };
}

/** The server's command line as a person would type it, for messages. */
export function commandLine(upstream: UpstreamCommand): string {
  return [upstream.command, ...upstream.args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
}

/** Why the server is gone, naming its command and exit status. */
export function upstreamGoneMessage(upstream: UpstreamCommand, exit: UpstreamExit | undefined): string {
  const how = exit === undefined ? 'closed its connection' : exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  return `the MCP server \`${commandLine(upstream)}\` ${how}`;
}
