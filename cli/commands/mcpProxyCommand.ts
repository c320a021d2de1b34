// `loopguard mcp-proxy -- <server command> [args…]`: guard any MCP server (integrations/mcp).
// stdout is the MCP channel: every log line goes to stderr.
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Context } from '../context.js';
import { DEFAULT_NEW_RUN_AFTER_MS } from '../../integrations/mcp/runs.js';
import { configOption, positiveInt } from '../options.js';

const EXAMPLES = `
The client (a desktop assistant, an IDE) starts the proxy instead of the server; the proxy
starts the server and forwards everything, asking loopguard before every tools/call.
Brokers and registry come from --config or KAFKA_BROKERS / SCHEMA_REGISTRY_URL, as for
every command; a \`loopguard run\` must be running against them.

Examples:
  $ loopguard mcp-proxy --failure open -- npx -y @modelcontextprotocol/server-filesystem ~/work
  $ loopguard mcp-proxy --session desk:alice --agent coder --failure closed --timeout-ms 500 \\
      -- node ./my-server.js --verbose
`;

interface Opts {
  config?: string;
  failure: 'open' | 'closed';
  timeoutMs: number;
  session?: string;
  agent?: string;
  sendRaw: boolean;
  newRunAfter: number;
}

const nonNegativeInt = (v: string, name: string): number => {
  if (!/^\d+$/.test(v.trim())) throw new InvalidArgumentError(`${name} must be a whole number of seconds (0 or more), got ${JSON.stringify(v)}`);
  return Number(v);
};

const nonBlankArg = (name: string) => (v: string) => {
  if (v.trim() === '') throw new InvalidArgumentError(`${name} must not be blank`);
  return v;
};

export function registerMcpProxy(program: Command, ctx: Context): void {
  program
    .command('mcp-proxy')
    .description(
      'Serve MCP on stdio in front of the MCP server given after --, asking loopguard before every tool call (a block is returned as an isError tool result, a warning is added to the result).',
    )
    .argument('<server...>', 'the MCP server command and its arguments, after --')
    .addOption(configOption())
    .addOption(
      new Option('--failure <policy>', 'when loopguard does not answer in time: open lets the call run, closed blocks it').choices(['open', 'closed']).makeOptionMandatory(),
    )
    .option('--timeout-ms <n>', 'how long to wait for loopguard before --failure applies', (v) => positiveInt(v, '--timeout-ms'), 2000)
    .option('--session <key>', "the run's session key (default: mcp:<the client's name>)", nonBlankArg('--session'))
    .option('--agent <id>', 'the agent id, for per-agent policy (toolPolicy.agents.<id>)', nonBlankArg('--agent'))
    .option('--send-raw', 'send raw tool arguments and results instead of their hashes', false)
    .option(
      '--new-run-after <seconds>',
      'a tool call after this many seconds without tool calls starts a new run, ending the one before (so a run loopguard ended does not block the rest of the session); 0: one run per session',
      (v) => nonNegativeInt(v, '--new-run-after'),
      DEFAULT_NEW_RUN_AFTER_MS / 1000,
    )
    .showHelpAfterError(false)
    // One `loopguard:` line for a bad option: the host that starts the proxy shows stderr as is.
    .configureOutput({ outputError: (text, write) => write(`loopguard: ${text.replace(/^error: /, '').trim()}\n`) })
    .addHelpText('after', EXAMPLES)
    .action(async (server: string[], opts: Opts) => {
      const { runMcpProxy } = await import('../../integrations/mcp/proxy.js');
      const { configLoopKeys, runnerOptionsOf, upstreamOf } = await import('../../integrations/mcp/options.js');
      const upstream = upstreamOf(server);
      const config = ctx.config(opts);
      const log = ctx.logger(config, 'mcp-proxy');
      // A host that stops the proxy by signal gets the same clean end as by closing its stdin.
      const stop = new AbortController();
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
      const end = await runMcpProxy({
        signal: stop.signal,
        upstream,
        loopguard: runnerOptionsOf(config, opts),
        loopKeyOf: configLoopKeys(config, opts.agent),
        log,
        ...(opts.session !== undefined ? { sessionKey: opts.session } : {}),
        ...(opts.agent !== undefined ? { agentId: opts.agent } : {}),
        newRunAfterMs: opts.newRunAfter * 1000,
      });
      if (end.failure !== undefined) process.stderr.write(`loopguard: ${end.failure}\n`);
      // The session is over and everything is closed; a socket given up on must not hold the process.
      process.exit(end.code);
    });
}
