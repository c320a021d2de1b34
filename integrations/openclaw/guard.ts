// What every register() instance of one gateway process shares. OpenClaw calls register()
// several times per process (one full instance, discovery instances), each in a module
// instance of its own, and the hooks that fire may come from any of them: so the Kafka
// connection, the runs and the pending warnings live on the process (one `Guard` per plugin
// config), never in module variables.
import { randomUUID } from 'node:crypto';
import { LoopguardRunner, toolFailureVerdict, type RunRef, type ToolVerdict } from '../../sdk/runner.js';
import { OPENCLAW_MAX_TIMEOUT_MS, openClawPluginConfig, type OpenClawPluginConfig } from '../../topology/config.js';
import { createLogger } from '../../topology/logger.js';
import type { OpenClawPluginApi, PluginLogger } from './host.js';

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

export class Guard {
  private runner: Promise<LoopguardRunner> | undefined;
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
  ) {}

  /** The shared runner, connected on first use; a failed connection is retried by the next call. */
  connected(): Promise<LoopguardRunner> {
    this.runner ??= this.connect().catch((e: unknown) => {
      this.runner = undefined;
      this.log.error(`loopguard: cannot connect to Kafka or the schema registry: ${(e as Error).message}`);
      throw e;
    });
    return this.runner;
  }

  async beforeToolCall(call: RunRef & { toolName: string; args: unknown; toolCallId?: string }): Promise<ToolVerdict> {
    const toolCallId = call.toolCallId ?? randomUUID();
    const { failure, timeoutMs } = this.config;
    const runner = await within(this.connected(), CALL_BUDGET_MS - timeoutMs);
    if (runner === undefined) return toolFailureVerdict(failure, call.toolName, toolCallId, timeoutMs);
    if (this.compactedSessions.delete(call.sessionKey)) await runner.compacted(call);
    return runner.beforeToolCall({ ...call, toolCallId });
  }

  async close(): Promise<void> {
    const r = this.runner;
    this.runner = undefined;
    if (r !== undefined) await (await r.catch(() => undefined))?.close();
  }

  private connect(): Promise<LoopguardRunner> {
    const c = this.config;
    const logger = createLogger({ log: { level: 'warn', redact: !c.sendRaw } }, 'loopguard-openclaw', { write: (line: string) => this.log.warn(line.trim()) });
    return LoopguardRunner.connect({
      brokers: c.brokers,
      schemaRegistryUrl: c.schemaRegistryUrl,
      clientId: c.clientId,
      ssl: c.ssl,
      ...(c.sasl ? { sasl: c.sasl } : {}),
      ...(c.topics ? { topics: c.topics } : {}),
      timeoutMs: c.timeoutMs,
      failure: c.failure,
      sendRaw: c.sendRaw,
      logger,
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
