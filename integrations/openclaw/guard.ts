// What every register() instance of one gateway process shares. OpenClaw calls register()
// several times per process (one full instance, discovery instances), each in a module
// instance of its own, and the hooks that fire may come from any of them: so the Kafka
// connection, the runs and the pending warnings live on the process (one `Guard` per plugin
// config), never in module variables.
import type { ChannelEvent } from '../../processors/botLoop/events.js';
import type { ClientOptions } from '../../sdk/connection.js';
import { LoopguardDispatcher, type InboundVerdict } from '../../sdk/dispatcher.js';
import { LoopguardRunner, type RunRef, type ToolVerdict } from '../../sdk/runner.js';
import { failureVerdict } from '../../sdk/verdicts.js';
import { openClawPluginConfig, type OpenClawPluginConfig } from '../../topology/config.js';
import { createLogger } from '../../topology/logger.js';
import type { OpenClawPluginApi, PluginLogger } from './host.js';
import { BotSenders } from './inbound.js';

const SHARED = Symbol.for('loopguard.openclaw.guard');
type Global = typeof globalThis & { [SHARED]?: Guard };

/**
 * A client made on first use, connecting in the background (it answers by the failure policy
 * until it is connected, and whenever loopguard is unreachable later). One refused for good
 * (credentials, a schema) is said once and made anew by the next use.
 */
class Lazy<T extends { close(): Promise<void>; readonly ready: Promise<void> }> {
  private client: T | undefined;

  constructor(
    private readonly open: () => T,
    private readonly log: PluginLogger,
  ) {}

  get(): T {
    if (this.client !== undefined) return this.client;
    const c = this.open();
    this.client = c;
    c.ready.catch((e: unknown) => {
      if (this.client === c) this.client = undefined;
      this.log.error(`loopguard: cannot connect to Kafka or the schema registry: ${(e as Error).message}`);
    });
    return c;
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    await c?.close();
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
    this.runner = new Lazy(() => this.startRunner(), log);
    this.dispatcher = new Lazy(() => LoopguardDispatcher.start({ ...this.clientOptions(), clientId: `${config.clientId}-dispatcher` }), log);
  }

  /** Whether the dispatcher reaches loopguard now (while it does not, it logs the outage itself). */
  inboundReachable(): boolean {
    return this.dispatcher.get().reachable;
  }

  /** The shared runner, made on first use. */
  connected(): LoopguardRunner {
    return this.runner.get();
  }

  /** Answers within `timeoutMs`, whatever is down (the runner's failure policy). */
  async beforeToolCall(call: RunRef & { toolName: string; args: unknown; toolCallId?: string }): Promise<ToolVerdict> {
    const runner = this.connected();
    if (this.compactedSessions.delete(call.sessionKey)) await runner.compacted(call);
    return runner.beforeToolCall(call);
  }

  /**
   * An inbound message: a bot's is decided (the failure policy answers when loopguard does not
   * in time), a person's is published and always delivered at once.
   */
  async inbound(m: ChannelEvent): Promise<InboundVerdict> {
    const dispatcher = this.dispatcher.get();
    if (m.type === 'human_message') return dispatcher.humanMessage(m);
    return dispatcher.botMessage(m).catch((e: unknown) => {
      this.log.warn(`loopguard: the message from ${m.senderId} was not checked: ${(e as Error).message}`);
      return failureVerdict(this.config.failure);
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

  private startRunner(): LoopguardRunner {
    return LoopguardRunner.start({
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
