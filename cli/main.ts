#!/usr/bin/env node
// The `loopguard` command. Each subcommand loads config, builds what it needs, and runs.
import { Command } from 'commander';
import { loadConfig, type LoopguardConfig } from '../topology/config.js';
import { LoopguardError } from '../topology/errors.js';
import { createLogger, type Logger } from '../topology/logger.js';
import { registerCommands } from './commands/index.js';

export interface Context {
  config(opts: { config?: string }): LoopguardConfig;
  logger(config: LoopguardConfig, name?: string): Logger;
}

const context: Context = {
  config: (opts) => {
    const config = loadConfig(opts.config);
    const log = createLogger(config.settings);
    for (const w of config.warnings) log.warn({ warning: w }, 'config notice');
    return config;
  },
  logger: (config, name) => createLogger(config.settings, name),
};


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
