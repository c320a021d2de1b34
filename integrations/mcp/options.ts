// From the command's options and loopguard's config to what the proxy needs: pure, so every
// refusal is specified without starting anything.
import { resolverFor } from '../../processors/toolLoop/config.js';
import { loopKeyResolver, type LoopKey } from '../../processors/toolLoop/policy.js';
import type { RunnerOptions } from '../../sdk/runner.js';
import type { LoopguardConfig } from '../../topology/config.js';
import { ERROR_CODES, LoopguardError } from '../../topology/errors.js';
import type { UpstreamCommand } from './upstream.js';

export interface ProxyCliOptions {
  readonly failure: 'open' | 'closed';
  readonly timeoutMs: number;
  readonly session?: string;
  readonly agent?: string;
  readonly sendRaw: boolean;
}

/**
 * The connection to loopguard: brokers, registry, TLS/SASL and topics as every command reads
 * them; and the rule set the session's agent follows, whose facts the proxy works out as it
 * hashes (docs/behaviour.md §6.5, §7.6).
 */
export function runnerOptionsOf(
  config: LoopguardConfig,
  opts: Pick<ProxyCliOptions, 'failure' | 'timeoutMs' | 'sendRaw' | 'agent'>,
): Omit<RunnerOptions, 'logger' | 'onAbort' | 'onWouldAbort'> {
  const { kafka, schemaRegistry } = config.settings;
  const profile = resolverFor(config.toolLoop)(opts.agent).profile;
  return {
    ...(profile !== undefined ? { profile } : {}),
    brokers: kafka.brokers,
    schemaRegistryUrl: schemaRegistry.url,
    ...(schemaRegistry.caFile !== undefined ? { schemaRegistryCaFile: schemaRegistry.caFile } : {}),
    topics: config.topics,
    ssl: kafka.ssl,
    ...(kafka.sasl !== undefined ? { sasl: kafka.sasl } : {}),
    kafkaClient: kafka.client,
    clientId: 'loopguard-mcp-proxy',
    failure: opts.failure,
    timeoutMs: opts.timeoutMs,
    sendRaw: opts.sendRaw,
  };
}

/**
 * The config's loopKeys (§7.1) for the session's agent, by tool name: the proxy hashes arguments
 * before loopguard sees them, so it restricts them itself. A tool definition's own loopKey wins.
 */
export function configLoopKeys(config: LoopguardConfig, agent: string | undefined): ((toolName: string) => LoopKey | undefined) | undefined {
  const of = loopKeyResolver(config.toolLoop.policy);
  return of === undefined ? undefined : (toolName) => of(agent, toolName);
}

/** The server to start: the words after `--`. */
export function upstreamOf(words: readonly string[]): UpstreamCommand {
  const [command, ...args] = words;
  if (command === undefined || command.trim() === '')
    throw new LoopguardError(
      ERROR_CODES.usage,
      'give the MCP server to start after --, e.g. `loopguard mcp-proxy --failure open -- npx -y @modelcontextprotocol/server-everything`',
      {},
    );
  return { command, args };
}
