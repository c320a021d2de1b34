// The `loopguard` command. Each subcommand loads config, builds what it needs, and runs.
import './jitless.js';
import { Command } from 'commander';
import { LoopguardError } from '../topology/errors.js';
import { registerCommands } from './commands/index.js';
import { context } from './context.js';
import { installOutputErrors } from './outputErrors.js';
import { debugRequested } from '../topology/config.js';

// For cli/bin.ts, before it writes the code cache.
export { restoreV8Flags } from './replay/heap.js';

const program = new Command()
  .name('loopguard')
  .description('Stops AI agents and chat bots from looping: a Kafka stream processor for tool calls and bot messages.')
  .showHelpAfterError();

installOutputErrors();

// Every failure is one `loopguard:` line; its stack only when LOG_LEVEL asks for debug output.
// (A function, not top-level await: the command is also bundled as CommonJS, see scripts/bundle-cli.mjs.)
async function main(): Promise<void> {
  try {
    await registerCommands(program, context, process.argv);
    await program.parseAsync(process.argv);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    process.stderr.write(`loopguard: ${message.replace(/\s*\n\s*/g, ' ')}\n`);
    if (debugRequested() && e instanceof Error && e.stack !== undefined) process.stderr.write(`${e.stack}\n`);
    process.exitCode = e instanceof LoopguardError && e.code === 'USAGE' ? 2 : 1;
  }
}

void main();
