// `loopguard mcp-proxy`: an MCP server on stdio in front of the MCP server it starts. Everything
// is forwarded both ways as it came; only `tools/call` is asked of loopguard first (and the task
// requests that follow a task-augmented one are watched for its result). One proxy
// process serves one MCP session, which is one loopguard run.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, type Notification } from '@modelcontextprotocol/sdk/types.js';
import { LoopguardRunner, type RunnerOptions, type RunRef } from '../../sdk/runner.js';
import type { LoopKey } from '../../processors/toolLoop/policy.js';
import type { Logger } from '../../topology/logger.js';
import { forwardNotification, forwardRequest, JsonRpcError, type Endpoint } from './forward.js';
import { ToolGuard } from './guard.js';
import { holdUntilInitialize } from './handshake.js';
import { sessionKeyOf } from './identity.js';
import { DEFAULT_NEW_RUN_AFTER_MS, SessionRuns } from './runs.js';
import { InFlight } from './inFlight.js';
import { upstreamGoneMessage } from './results.js';
import { UpstreamTransport, type UpstreamCommand } from './upstream.js';

export interface McpProxyOptions {
  readonly upstream: UpstreamCommand;
  /** How to reach loopguard (brokers, registry, topics, failure policy, timeout). */
  readonly loopguard: Omit<RunnerOptions, 'onAbort' | 'onWouldAbort' | 'logger'>;
  /** The run's session key; default derived from the client's name (`mcp:<name>`). */
  readonly sessionKey?: string;
  /** The agent whose policy applies (`toolPolicy.agents.<id>`). */
  readonly agentId?: string;
  /** The config's call identity by tool name (§7.1); a tool definition's own `_meta` loopKey wins. */
  readonly loopKeyOf?: (toolName: string) => LoopKey | undefined;
  /** A call after this long without tool calls starts a new run (runs.ts); 0: one run per session. Default 120 s. */
  readonly newRunAfterMs?: number;
  readonly log: Logger;
  readonly stdin?: NodeJS.ReadableStream & { pause(): unknown };
  readonly stdout?: NodeJS.WritableStream;
  /** Aborting it ends the session as the client going away does (the command aborts on SIGINT/SIGTERM). */
  readonly signal?: AbortSignal;
}

export interface ProxyEnd {
  /**
   * 0 when the client went away; 1 when the server died, or loopguard refused the proxy for
   * good (credentials, a schema): never because Kafka or the registry is away, which the
   * failure policy answers for until they are back.
   */
  readonly code: 0 | 1;
  /** Why it ended, when that is a failure. */
  readonly failure?: string;
}

/** Serves one MCP session on stdin/stdout until the client or the server goes away. */
export async function runMcpProxy(opts: McpProxyOptions): Promise<ProxyEnd> {
  const { log } = opts;
  const stdin = opts.stdin ?? process.stdin;
  const downstream = new StdioServerTransport(stdin as never, (opts.stdout ?? process.stdout) as never);
  let end!: (e: ProxyEnd) => void;
  const ended = new Promise<ProxyEnd>((r) => (end = r));
  // The stdio transport does not notice end of input: that is the client going away.
  // `leaving` also stops waiting for a server that has not answered its `initialize` yet.
  const leaving = new AbortController();
  const leave = () => {
    leaving.abort();
    void downstream.close();
  };
  stdin.once('end', leave);
  opts.signal?.addEventListener('abort', leave, { once: true });
  // Connects in the background: calls are answered by the failure policy until it is up, and
  // whenever Kafka or the registry is away later.
  const runner = LoopguardRunner.start({
    ...opts.loopguard,
    logger: log,
    onAbort: (a) => log.warn({ runKey: a.runKey, detector: a.detector, tool: a.toolName, count: a.count }, 'loopguard ended this run: every later tool call is blocked'),
    onWouldAbort: (a) => log.warn({ runKey: a.runKey, detector: a.detector, tool: a.toolName, count: a.count }, 'shadow mode: loopguard would have ended this run'),
  });
  runner.ready.catch((e: Error) => end({ code: 1, failure: `cannot connect to loopguard: ${e.message}` }));

  let held;
  try {
    held = await holdUntilInitialize(downstream);
  } catch {
    return finish(runner, undefined, { code: 0 }, log);
  }
  const upstream = new UpstreamTransport(opts.upstream);
  const client = new Client(held.initialize.params.clientInfo, { capabilities: held.initialize.params.capabilities });
  const inFlight = new InFlight();
  let upstreamGone = false;
  const goneError = () => new JsonRpcError(ErrorCode.ConnectionClosed, upstreamGoneMessage(opts.upstream, upstream.exit));
  // Requests and notifications of the server wait for the client to have finished initializing.
  let clientReady!: (s: Endpoint) => void;
  const toClient = new Promise<Endpoint>((r) => (clientReady = r));
  client.fallbackRequestHandler = async (req, extra) => forwardRequest(await toClient, req, extra);
  client.fallbackNotificationHandler = async (n) => forwardNotification(await toClient, n, refused(log, 'client'));
  client.onclose = () => {
    upstreamGone = true;
    end({ code: 1, failure: upstreamGoneMessage(opts.upstream, upstream.exit) });
  };
  try {
    await client.connect(upstream, { signal: leaving.signal });
  } catch (e) {
    await upstream.close();
    // The client left (or a signal came) before the server answered: a clean end, the server stopped.
    if (leaving.signal.aborted) return finish(runner, undefined, { code: 0 }, log);
    const message = `cannot start the MCP server: ${upstreamGoneMessage(opts.upstream, upstream.exit)}: ${(e as Error).message}`;
    await downstream.send({ jsonrpc: '2.0', id: held.initialize.id, error: { code: ErrorCode.InternalError, message } }).catch(() => undefined);
    await downstream.close();
    return finish(runner, undefined, { code: 1, failure: message }, log);
  }

  const runs = new SessionRuns(
    { sessionKey: opts.sessionKey ?? sessionKeyOf(held.initialize.params.clientInfo), ...(opts.agentId !== undefined ? { agentId: opts.agentId } : {}) },
    opts.newRunAfterMs ?? DEFAULT_NEW_RUN_AFTER_MS,
    (ended) => {
      log.info({ runId: ended.runId }, 'quiet period: the next tool call starts a new run');
      void runner.runEnded(ended);
    },
  );
  const { run } = runs;
  log.info({ sessionKey: run.sessionKey, runId: run.runId, agentId: run.agentId, server: client.getServerVersion() }, 'MCP session started');
  const guard = new ToolGuard(runner, runs, log, Date.now, opts.loopKeyOf);
  const server = new Server(client.getServerVersion()!, { capabilities: client.getServerCapabilities() ?? {}, instructions: client.getInstructions() });
  // The server's own log level is the wrapped server's business: forwarded, not answered here.
  server.removeRequestHandler('logging/setLevel');
  const toServer = async <T>(send: () => Promise<T>): Promise<T> => {
    if (upstreamGone) throw goneError();
    return send().catch((e: unknown) => {
      throw upstreamGone ? goneError() : e;
    });
  };
  server.fallbackRequestHandler = (req, extra) => inFlight.track(guard.request(req, () => toServer(() => forwardRequest(client, req, extra)))) as never;
  server.fallbackNotificationHandler = (n: Notification) => forwardNotification(client, n, refused(log, 'server'));
  server.oninitialized = () => clientReady(server);
  server.onclose = () => end({ code: 0 });
  await server.connect(held.transport);
  const outcome = await ended;
  // A server that died answers its in-flight calls with why (above) before the proxy exits.
  await inFlight.settled();
  await server.close().catch(() => undefined);
  await client.close().catch(() => undefined);
  return finish(runner, runs.run, outcome, log);
}

/** Ends the run in loopguard (when the session had one) and closes the connection to it, sending what is queued. */
async function finish(runner: LoopguardRunner, run: RunRef | undefined, outcome: ProxyEnd, log: Logger): Promise<ProxyEnd> {
  if (run !== undefined) await runner.runEnded(run);
  await runner.close().catch(() => undefined);
  log.info({ code: outcome.code, failure: outcome.failure }, 'MCP session ended');
  return outcome;
}

const refused = (log: Logger, to: 'client' | 'server') => (n: Notification, e: unknown) =>
  log.warn({ method: n.method, to, err: (e as Error).message }, 'notification not forwarded: the receiving side did not declare the capability');
