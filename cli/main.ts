#!/usr/bin/env node
// The `loopguard` command. Each subcommand loads config, builds what it needs, and runs.
import { Command } from 'commander';
import { LoopguardError } from '../topology/errors.js';
import { registerCommands } from './commands/index.js';
import { context } from './context.js';

const program = new Command()
  .name('loopguard')
  .description('Stops AI agents and chat bots from looping: a Kafka stream processor for tool calls and bot messages.')
  .showHelpAfterError();
registerCommands(program, context);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof LoopguardError) {
    process.stderr.write(`loopguard: ${e.message}\n`);
    process.exitCode = e.code === 'USAGE' ? 2 : 1;
  } else {
    throw e;
  }
}
