// What every register() instance of one gateway process shares. OpenClaw calls register()
// several times per process (one full instance, discovery instances), each in a module
// instance of its own, and the hooks that fire may come from any of them: so the Kafka
// connection, the runs and the pending warnings live on the process (one `Guard` per plugin
// config), never in module variables.
import type { ChannelEvent } from '../../processors/botLoop/events.js';
import { runKeyOf } from '../../processors/toolLoop/events.js';
import type { ClientOptions } from '../../sdk/connection.js';
import { LoopguardDispatcher, type InboundVerdict } from '../../sdk/dispatcher.js';
import { LoopguardRunner, type RunnerOptions, type RunRef, type ToolVerdict } from '../../sdk/runner.js';
import { failureVerdict } from '../../sdk/verdicts.js';
import { openClawPluginConfig, type OpenClawPluginConfig } from '../../topology/config.js';
import { createLogger } from '../../topology/logger.js';
import type { ModelCall } from './dispatch.js';
import type { OpenClawPluginApi, PluginLogger } from './host.js';
import { BotSenders } from './inbound.js';
import { Turns } from './turns.js';

const SHARED = Symbol.for('loopguard.openclaw.guard');
type Global = typeof globalThis & { [SHARED]?: Guard };

/** What the plugin keeps per call between its hooks; bounded, as calls whose later hooks never come must not grow it. */
const MAX_CALLS = 10_000;

/** The call a hook's toolCallId stands for, and whether an outcome of it was published. */
export interface Tracked {
  readonly call: ModelCall;
  reported: boolean;
}

/** A map that forgets its oldest entry beyond `max`. */
export class Bounded<V> extends Map<string, V> {
  constructor(private readonly max = MAX_CALLS) {
    super();
  }

  override set(key: string, value: V): this {
    if (!this.has(key) && this.size >= this.max) this.delete(this.keys().next().value!);
    return super.set(key, value);
  }

  /** The value, removed. */
  take(key: string): V | undefined {
    const v = this.get(key);
    this.delete(key);
    return v;
  }
}

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
  /**
   * Warnings to show the model with the result it reads, by `runKey/toolCallId` of that result:
   * the call's own, or for a call a dispatcher made, the dispatcher's.
   */
  readonly warnings = new Bounded<string>();
  /** Warnings appended to a result, by `runKey/toolCallId`: not part of the tool's outcome. */
  readonly appended = new Bounded<string>();
  /** The model turns planned from their assistant messages, newest per session (turns.ts). */
  readonly turns = new Turns<ToolVerdict>();
  /** The call each hook's toolCallId stands for (a `tool_call`'s target for both its hooks), by `runKey/toolCallId`. */
  readonly calls = new Bounded<Tracked>();
  /** Dispatcher calls in flight, by run key: their ids and tools, to find the parent of an inner call. */
  readonly dispatching = new Map<string, Map<string, string>>();
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

  /**
   * The verdict for a call the model made, within `timeoutMs` whatever is down (the runner's
   * failure policy), and the call as published: a call of a planned turn is decided with the
   * whole turn at once, as the turn's message named it (turns.ts); any other alone.
   */
  async decide(run: RunRef, call: ModelCall): Promise<{ readonly verdict: ToolVerdict; readonly published: ModelCall }> {
    const runner = this.connected();
    if (this.compactedSessions.delete(run.sessionKey)) await runner.compacted(run);
    const turn = this.turns.of(run.sessionKey, call.toolCallId);
    if (turn === undefined) return { verdict: await runner.beforeToolCall({ ...run, ...call }), published: call };
    turn.decided ??= runner
      .beforeToolCalls(
        turn.calls.map((c) => ({ ...run, ...c })),
        { turnId: turn.turnId },
      )
      .then((vs) => new Map(vs.map((v) => [v.toolCallId, v])));
    const published = turn.calls.find((c) => c.toolCallId === call.toolCallId)!;
    return { verdict: (await turn.decided).get(call.toolCallId)!, published };
  }

  /** A dispatcher call began: its inner calls find it by id. */
  openDispatch(run: RunRef, toolCallId: string, toolName: string): void {
    const key = runKeyOf(run);
    const open = this.dispatching.get(key) ?? new Map<string, string>();
    if (open.size >= MAX_CALLS) open.delete(open.keys().next().value!);
    this.dispatching.set(key, open.set(toolCallId, toolName));
  }

  closeDispatch(run: RunRef, toolCallId: string): void {
    const key = runKeyOf(run);
    const open = this.dispatching.get(key);
    open?.delete(toolCallId);
    if (open?.size === 0) this.dispatching.delete(key);
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
      ...eventsOf(this.config),
      onAbort: (a) => {
        this.aborted.add(a.runKey);
        this.log.warn(`loopguard: run ${a.runKey} ended (${a.detector}, count ${a.count}): ${a.message}`);
      },
      onWouldAbort: (a) => this.log.warn(`loopguard [shadow]: would end run ${a.runKey} (${a.detector}, count ${a.count}): ${a.message}`),
    });
  }
}

/**
 * How the runner publishes tool events: as the processor reading the same entry keys them
 * (`processor.keyToolEventsBy`) and decides them (`loopDetection.profile`), raw or hashed.
 */
export function eventsOf(config: OpenClawPluginConfig): Pick<RunnerOptions, 'sendRaw' | 'keyBy' | 'profile'> {
  const profile = config.loopDetection?.profile;
  return { sendRaw: config.sendRaw, keyBy: config.processor?.keyToolEventsBy ?? 'run', ...(profile !== undefined ? { profile } : {}) };
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
