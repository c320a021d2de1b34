// Forwarding one side's messages to the other, method-agnostic: whatever the two ends speak
// (including methods newer than this SDK) passes through as it came. Progress and cancellation
// are the only things rewritten, because each hop has its own request ids: a progress token
// the client chose is replaced by this hop's and mapped back; a cancelled request aborts the
// signal the SDK gives the handler, which cancels the forwarded request in turn.
//
// An SDK client hands notifications to their handlers a microtask after it reads them, but
// settles a response at once: progress and a result read in one chunk lose the progress (the
// handler is gone when it runs). A server answering directly is seldom that quick; a proxy
// relaying a result right behind the progress often is. So after forwarding progress the proxy
// pings the requester once before handing back the result: the ping's answer proves the
// progress was read and handled.
import type { Protocol, RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { EmptyResultSchema, McpError, ResultSchema, type JSONRPCRequest, type Notification, type Request, type Result } from '@modelcontextprotocol/sdk/types.js';

// Any two SDK endpoints (Client, Server): the proxy only ever sends what it received.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Endpoint = Protocol<any, any, any>;

export interface HandlerExtra {
  readonly signal: AbortSignal;
  sendNotification(n: Notification): Promise<void>;
  sendRequest(r: Request, schema: typeof EmptyResultSchema, options?: RequestOptions): Promise<unknown>;
}

/** How long the proxy waits for a requester to answer the ping that follows forwarded progress. */
const PROGRESS_PING_TIMEOUT_MS = 5_000;

/**
 * No time limit of the proxy's own: the end that sent the request has its own, and cancels
 * when it expires. (The largest delay a Node timer takes, about 24.8 days.)
 */
const NO_TIMEOUT_MS = 2_147_483_647;

/**
 * A JSON-RPC error as it is to be answered: the SDK's McpError carries the code and data the
 * other end sent, but its message is that end's message behind `MCP error <code>: `; answered
 * as it is, the requester's SDK adds the prefix again. So the message goes back as it was sent.
 */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** `e` as the error to answer with: an McpError's code, data and own message; anything else as it is. */
export function asAnswered(e: unknown): unknown {
  if (!(e instanceof McpError)) return e;
  const prefix = `MCP error ${e.code}: `;
  return new JsonRpcError(e.code, e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message, e.data);
}

/** Sends `request` on `to` and returns its result as received (every field kept), or rejects with its error as sent. */
export async function forwardRequest(to: Endpoint, request: Pick<JSONRPCRequest, 'method' | 'params'>, extra: HandlerExtra): Promise<Result> {
  const token = request.params?._meta?.progressToken;
  const options: RequestOptions = { signal: extra.signal, timeout: NO_TIMEOUT_MS };
  let progressSent: Promise<unknown> | undefined;
  if (token !== undefined) {
    options.onprogress = (progress) => {
      const send = () => extra.sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken: token } }).catch(() => undefined);
      progressSent = (progressSent ?? Promise.resolve()).then(send);
    };
  }
  const result = await to.request({ method: request.method, params: request.params } as Request, ResultSchema, options).catch((e: unknown) => {
    throw asAnswered(e);
  });
  if (progressSent !== undefined) {
    await progressSent;
    // A requester that does not answer pings (against the protocol) costs this wait, nothing more.
    await extra.sendRequest({ method: 'ping' }, EmptyResultSchema, { signal: extra.signal, timeout: PROGRESS_PING_TIMEOUT_MS }).catch(() => undefined);
  }
  return result;
}

/** Sends a notification on `to`; one the other end may not send (by its capabilities) is reported, not thrown. */
export async function forwardNotification(to: Endpoint, n: Notification, onRefused: (n: Notification, e: unknown) => void): Promise<void> {
  try {
    await to.notification(n);
  } catch (e) {
    onRefused(n, e);
  }
}
