// What every register() instance of one gateway process shares. OpenClaw calls register()
// several times per process (one full instance, discovery instances), each in a module
// instance of its own, and the hooks that fire may come from any of them: so the Kafka
// connection, the runs and the pending warnings live on the process (one `Guard` per plugin
// config), never in module variables.
import { randomUUID } from 'node:crypto';
import type { ChannelEvent } from '../../processors/botLoop/events.js';
import type { ClientOptions } from '../../sdk/connection.js';
import { LoopguardDispatcher, type InboundVerdict } from '../../sdk/dispatcher.js';
import { LoopguardRunner, toolFailureVerdict, type RunRef, type ToolVerdict } from '../../sdk/runner.js';
import { adapterVerdict, failureVerdict } from '../../sdk/verdicts.js';
import { OPENCLAW_MAX_TIMEOUT_MS, openClawPluginConfig, type OpenClawPluginConfig } from '../../topology/config.js';
import { createLogger } from '../../topology/logger.js';
import type { OpenClawPluginApi, PluginLogger } from './host.js';
import { BotSenders } from './inbound.js';

const SHARED = Symbol.for('loopguard.openclaw.guard');
type Global = typeof globalThis & { [SHARED]?: Guard };

/** Connecting and deciding together stay under OpenClaw's 15 s `before_tool_call` budget. */
const CALL_BUDGET_MS = OPENCLAW_MAX_TIMEOUT_MS + 2000;

const within = <T>(p: Promise<T>, ms: number): Promise<T | undefined> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    p.then(
      (v) => (clearTimeout(timer), resolve(v)),
      () => (clearTimeout(timer), resolve(undefined)),
    );
  });

/** A client connected on first use; a failed connection is retried by the next use. */
class Lazy<T extends { close(): Promise<void> }> {
  private client: Promise<T> | undefined;

  constructor(
    private readonly open: () => Promise<T>,
    private readonly log: PluginLogger,
  ) {}

  get(): Promise<T> {
    this.client ??= this.open().catch((e: unknown) => {
      this.client = undefined;
      this.log.error(`loopguard: cannot connect to Kafka or the schema registry: ${(e as Error).message}`);
      throw e;
    });
    return this.client;
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c !== undefined) await (await c.catch(() => undefined))?.close();
  }
}

export class Guard {
  private readonly runner: Lazy<LoopguardRunner>;
  /** Opened with the first inbound message: a gateway that guards no bot messages never connects it. */
  private readonly dispatcher: Lazy<LoopguardDispatcher>;
  /** The senders whose messages are bot messages (`botSenderIds`). */
  readonly botSenders: BotSenders;
  /** The runs seen, by runId: session_end ends the runs of its session. */
  readonly runs = new Map<string, RunRef>();
  /** Warnings to show the model with the result of the call they warned, by `runKey/toolCallId`. */
  readonly warnings = new Map<string, string>();
  /** Warnings appended to a result, by `runKey/toolCallId`: not part of the tool's outcome. */
  readonly appended = new Map<string, string>();
  /**
   * Sessions compacted by a hook that named no run (OpenClaw 2026.9's compaction hooks carry
   * sessionKey and sessionId, never runId), by session key: the compaction is sent for the run
   * of the session's next tool call. Compaction runs between model calls, never while a tool
   * runs, so no outcome of that run can come between the compaction and that call.
   */
  readonly compactedSessions = new Set<string>();
  /** Runs loopguard ended: their results ask OpenClaw to stop the run. */
  readonly aborted = new Set<string>();

  constructor(
    readonly config: OpenClawPluginConfig,
    readonly key: string,
    readonly log: PluginLogger,
  ) {
    this.botSenders = new BotSenders(config.botSenderIds);
    this.runner = new Lazy(() => this.connectRunner(), log);
    this.dispatcher = new Lazy(() => LoopguardDispatcher.connect({ ...this.clientOptions(), clientId: `${config.clientId}-dispatcher` }), log);
  }

  /** The shared runner, connected on first use; a failed connection is retried by the next call. */
  connected(): Promise<LoopguardRunner> {
    return this.runner.get();
  }

  async beforeToolCall(call: RunRef & { toolName: string; args: unknown; toolCallId?: string }): Promise<ToolVerdict> {
    const toolCallId = call.toolCallId ?? randomUUID();
    const { failure, timeoutMs } = this.config;
    const runner = await within(this.connected(), CALL_BUDGET_MS - timeoutMs);
    if (runner === undefined) return toolFailureVerdict(failure, call.toolName, toolCallId, timeoutMs);
    if (this.compactedSessions.delete(call.sessionKey)) await runner.compacted(call);
    return runner.beforeToolCall({ ...call, toolCallId });
  }

  /**
   * An inbound message: a bot's is decided (the failure policy answers when loopguard does not
   * in time), a person's is published and always delivered. Neither waits longer than OpenClaw
   * lets a tool call wait.
   */
  async inbound(m: ChannelEvent): Promise<InboundVerdict> {
    const { failure, timeoutMs } = this.config;
    const dispatcher = await within(this.dispatcher.get(), CALL_BUDGET_MS - timeoutMs);
    if (m.type === 'human_message') {
      if (dispatcher !== undefined) await within(dispatcher.humanMessage(m), timeoutMs);
      return adapterVerdict('human_message');
    }
    if (dispatcher === undefined) return failureVerdict(failure);
    return dispatcher.botMessage(m).catch((e: unknown) => {
      this.log.warn(`loopguard: the message from ${m.senderId} was not checked: ${(e as Error).message}`);
      return failureVerdict(failure);
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.runner.close(), this.dispatcher.close()]);
  }

  private clientOptions(): ClientOptions {
    const c = this.config;
    const logger = createLogger({ log: { level: 'warn', redact: !c.sendRaw } }, 'loopguard-openclaw', { write: (line: string) => this.log.warn(line.trim()) });
    return {
      brokers: c.brokers,
      schemaRegistryUrl: c.schemaRegistryUrl,
      ...(c.schemaRegistryCaFile !== undefined ? { schemaRegistryCaFile: c.schemaRegistryCaFile } : {}),
      clientId: c.clientId,
      kafkaClient: c.kafkaClient,
      ssl: c.ssl,
      ...(c.sasl ? { sasl: c.sasl } : {}),
      ...(c.topics ? { topics: c.topics } : {}),
      timeoutMs: c.timeoutMs,
      failure: c.failure,
      logger,
    };
  }

  private connectRunner(): Promise<LoopguardRunner> {
    return LoopguardRunner.connect({
      ...this.clientOptions(),
      sendRaw: this.config.sendRaw,
      onAbort: (a) => {
        this.aborted.add(a.runKey);
        this.log.warn(`loopguard: run ${a.runKey} ended (${a.detector}, count ${a.count}): ${a.message}`);
      },
      onWouldAbort: (a) => this.log.warn(`loopguard [shadow]: would end run ${a.runKey} (${a.detector}, count ${a.count}): ${a.message}`),
    });
  }
}

/**
 * The process's guard for this plugin config: validated here, so a bad value refuses to load
 * with its key named. A changed config (OpenClaw reloads plugins on edit) replaces the guard.
 */
export function guardFor(api: OpenClawPluginApi): Guard {
  const config = openClawPluginConfig(api.pluginConfig);
  const key = JSON.stringify(config);
  const g = globalThis as Global;
  const current = g[SHARED];
  if (current?.key === key) return current;
  if (current !== undefined) void current.close();
  return (g[SHARED] = new Guard(config, key, api.logger));
}
