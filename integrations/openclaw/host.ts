// The part of OpenClaw's plugin API this adapter uses, as OpenClaw 2026.9 declares it
// (openclaw/dist/plugin-entry-*.d.ts). OpenClaw is not a dependency of this package: these
// are structural types, checked against the real host by test/openclaw.test.ts.

export interface PluginLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Context of `before_tool_call` / `after_tool_call`. */
export interface ToolContext {
  readonly agentId?: string;
  readonly sessionKey?: string;
  readonly sessionId?: string;
  readonly runId?: string;
  readonly toolCallId?: string;
}

/** Context of agent hooks (`agent_end`, `after_compaction`) and session hooks (`session_end`). */
export type AgentContext = Omit<ToolContext, 'toolCallId'>;

export interface BeforeToolCallEvent {
  readonly toolName: string;
  readonly params: Record<string, unknown>;
  readonly runId?: string;
  readonly toolCallId?: string;
}

export interface AfterToolCallEvent extends BeforeToolCallEvent {
  readonly result?: unknown;
  readonly error?: string;
}

export interface BeforeToolCallResult {
  readonly block?: boolean;
  readonly blockReason?: string;
}

/** A tool result as the result middleware sees and returns it. */
export interface ToolResult {
  readonly content: ReadonlyArray<{ type: string; text?: string }>;
  readonly details?: unknown;
  readonly terminate?: boolean;
}

export interface ToolResultEvent {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly result: ToolResult;
}

export interface ToolResultContext {
  readonly runId?: string;
  readonly sessionKey?: string;
}

/** `before_dispatch`: an inbound message, before the agent sees it. */
export interface BeforeDispatchEvent {
  readonly messageId?: string;
  readonly content?: string;
  readonly channel?: string;
  readonly sessionKey?: string;
  readonly senderId?: string;
  /** The platform's time of the message, epoch ms. */
  readonly timestamp?: number;
}

export interface BeforeDispatchContext {
  readonly messageId?: string;
  readonly channelId?: string;
  readonly accountId?: string;
  readonly conversationId?: string;
  readonly sessionKey?: string;
  readonly senderId?: string;
}

/** `handled: true` ends the message there: without `text`, no reply is sent. */
export interface BeforeDispatchResult {
  readonly handled: boolean;
  readonly text?: string;
}

/** `before_message_write`: a message about to be written to the session's transcript. */
export interface BeforeMessageWriteEvent {
  readonly message: unknown;
}

export interface BeforeMessageWriteContext {
  readonly agentId?: string;
  readonly sessionKey?: string;
}

export interface HookHandlers {
  before_dispatch: (event: BeforeDispatchEvent, ctx: BeforeDispatchContext) => Promise<BeforeDispatchResult | void>;
  /** Synchronous: OpenClaw writes what it returns (nothing: the message as it is). */
  before_message_write: (event: BeforeMessageWriteEvent, ctx: BeforeMessageWriteContext) => void;
  before_tool_call: (event: BeforeToolCallEvent, ctx: ToolContext) => Promise<BeforeToolCallResult | void>;
  after_tool_call: (event: AfterToolCallEvent, ctx: ToolContext) => Promise<void>;
  after_compaction: (event: unknown, ctx: AgentContext) => Promise<void>;
  agent_end: (event: { runId?: string }, ctx: AgentContext) => Promise<void>;
  session_end: (event: { sessionKey?: string }, ctx: AgentContext) => Promise<void>;
  gateway_stop: (event: unknown, ctx: unknown) => Promise<void>;
}

export interface OpenClawPluginApi {
  readonly id: string;
  /** 'full' for the instance that runs; discovery instances register too (three times per process). */
  readonly registrationMode: string;
  readonly pluginConfig?: Record<string, unknown>;
  readonly logger: PluginLogger;
  on<K extends keyof HookHandlers>(hook: K, handler: HookHandlers[K], opts?: { priority?: number }): void;
  registerAgentToolResultMiddleware?(handler: (event: ToolResultEvent, ctx: ToolResultContext) => Promise<{ result: ToolResult } | void>, opts?: { runtimes?: string[] }): void;
}
