// Every `loopguard` subcommand, loaded on demand: a command imports only what it needs, so
// `replay` never loads the Kafka client and starts about as fast as node itself.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { packageVersion } from '../packageInfo.js';

type Register = (program: Command, ctx: Context) => void;

const COMMANDS: Readonly<Record<string, () => Promise<Register>>> = {
  start: async () => (await import('./startCommand.js')).registerStart,
  console: async () => (await import('./consoleCommand.js')).registerConsole,
  demo: async () => (await import('./demoCommand.js')).registerDemo,
  replay: async () => (await import('./replayCommand.js')).registerReplay,
  run: async () => (await import('./runCommand.js')).registerRun,
  topics: async () => (await import('./topicsCommand.js')).registerTopics,
  produce: async () => (await import('./produceCommand.js')).registerProduce,
  tail: async () => (await import('./tailCommand.js')).registerTail,
  reset: async () => (await import('./resetCommand.js')).registerReset,
  'mcp-proxy': async () => (await import('./mcpProxyCommand.js')).registerMcpProxy,
};

/** Registers the command `argv` names, or all of them (for help, or an unknown command). */
export async function registerCommands(program: Command, ctx: Context, argv: readonly string[]): Promise<void> {
  program.version(packageVersion(), '-V, --version', 'print the loopguard version');
  const name = argv[2];
  const wanted = name !== undefined && Object.hasOwn(COMMANDS, name) ? [name] : Object.keys(COMMANDS);
  for (const register of await Promise.all(wanted.map((n) => COMMANDS[n]!()))) register(program, ctx);
}
