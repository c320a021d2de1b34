import type { Command } from 'commander';
import type { Context } from '../main.js';
import { registerDemo } from './demoCommand.js';
import { registerReplay } from './replayCommand.js';

export function registerCommands(program: Command, ctx: Context): void {
  registerDemo(program, ctx);
  registerReplay(program, ctx);
}
