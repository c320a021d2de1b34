// What the proxy says to the client, and what it publishes as a call's outcome: pure shaping of
// MCP results, so every message is specified without a server.
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

const textOf = (content: readonly unknown[] | undefined): string =>
  (content ?? [])
    .map((c) => (typeof c === 'object' && c !== null && (c as { type?: unknown }).type === 'text' ? String((c as { text?: unknown }).text) : ''))
    .filter((t) => t !== '')
    .join('\n');

/**
 * The outcome to publish for a call that ran: a result the server marked `isError` is an error
 * whose message is its text (so loopguard judges it transient or not by its rules, §4.4); any
 * other result is its content (and structured content), without `_meta`, which servers use for
 * per-call data that says nothing about progress.
 */
export function outcomeOfResult(result: ToolResult): ToolOutcome {
  if (result.isError === true) return { error: { message: textOf(result.content) || 'the tool reported an error without text' } };
  return { result: result.structuredContent === undefined ? { content: result.content ?? [] } : { content: result.content ?? [], structuredContent: result.structuredContent } };
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
