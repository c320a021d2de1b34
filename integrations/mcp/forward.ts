// Forwarding one side's messages to the other, method-agnostic: whatever the two ends speak
// (including methods newer than this SDK) passes through as it came. Progress and cancellation
// are the only things rewritten, because each hop has its own request ids: a progress token
// the client chose is replaced by this hop's and mapped back; a cancelled request aborts the
// signal the SDK gives the handler, which cancels the forwarded request in turn.
import type { Protocol, RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ResultSchema, type JSONRPCRequest, type Notification, type Request, type Result } from '@modelcontextprotocol/sdk/types.js';

// Any two SDK endpoints (Client, Server): the proxy only ever sends what it received.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Endpoint = Protocol<any, any, any>;

export interface HandlerExtra {
  readonly signal: AbortSignal;
  sendNotification(n: Notification): Promise<void>;
}

/**
 * No time limit of the proxy's own: the end that sent the request has its own, and cancels
 * when it expires. (The largest delay a Node timer takes, about 24.8 days.)
 */
const NO_TIMEOUT_MS = 2_147_483_647;

/** Sends `request` on `to` and returns its result as received (every field kept). */
export function forwardRequest(to: Endpoint, request: Pick<JSONRPCRequest, 'method' | 'params'>, extra: HandlerExtra): Promise<Result> {
  const token = request.params?._meta?.progressToken;
  const options: RequestOptions = { signal: extra.signal, timeout: NO_TIMEOUT_MS };
  if (token !== undefined) {
    options.onprogress = (progress) => void extra.sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken: token } }).catch(() => undefined);
  }
  return to.request({ method: request.method, params: request.params } as Request, ResultSchema, options);
}

/** Sends a notification on `to`; one the other end may not send (by its capabilities) is reported, not thrown. */
export async function forwardNotification(to: Endpoint, n: Notification, onRefused: (n: Notification, e: unknown) => void): Promise<void> {
  try {
    await to.notification(n);
  } catch (e) {
    onRefused(n, e);
  }
}
