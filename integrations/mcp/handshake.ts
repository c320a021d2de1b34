// The proxy cannot answer `initialize` before it knows the upstream server (its capabilities,
// info and instructions are what the client must see), and cannot start the upstream before
// it knows the client (whose capabilities — roots, sampling, elicitation — the upstream must
// see). So the client's transport is held until its `initialize` arrives; the MCP `Server` is
// built only then, and connected to a view of the transport that replays what was held.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isInitializeRequest, isJSONRPCRequest, type InitializeRequest, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

export interface HeldClient {
  /** The client's `initialize` request. */
  readonly initialize: InitializeRequest & { readonly id: RequestId };
  /** The client's transport, with every message received so far replayed on `start()`. */
  readonly transport: Transport;
}

/** Starts `transport` and resolves at the client's `initialize`; rejects if it closes before. */
export async function holdUntilInitialize(transport: Transport): Promise<HeldClient> {
  const held: JSONRPCMessage[] = [];
  let closed = false;
  const initialize = new Promise<HeldClient['initialize']>((resolve, reject) => {
    transport.onmessage = (m) => {
      held.push(m);
      if (isInitializeRequest(m) && isJSONRPCRequest(m)) resolve({ method: m.method, params: m.params, id: m.id });
    };
    transport.onclose = () => {
      closed = true;
      reject(new Error('the MCP client closed the connection before initializing'));
    };
  });
  await transport.start();
  return { initialize: await initialize, transport: replaying(transport, held, () => closed) };
}

function replaying(inner: Transport, held: JSONRPCMessage[], closedBefore: () => boolean): Transport {
  const view: Transport = {
    start: async () => {
      // A client that went away (or a signal) while the upstream was starting closed the
      // transport before this view took it over: it closes at once, so the session ends.
      if (closedBefore()) return void view.onclose?.();
      inner.onmessage = (m, extra) => view.onmessage?.(m, extra);
      inner.onclose = () => view.onclose?.();
      inner.onerror = (e) => view.onerror?.(e);
      for (const m of held.splice(0)) view.onmessage?.(m);
    },
    send: (m, options) => inner.send(m, options),
    close: () => inner.close(),
  };
  return view;
}
