import type { Command } from 'commander';
import type { Context } from '../main.js';
import { packageVersion } from '../packageInfo.js';
import { registerConsole } from './consoleCommand.js';
import { registerDemo } from './demoCommand.js';
import { registerProduce } from './produceCommand.js';
import { registerReplay } from './replayCommand.js';
import { registerReset } from './resetCommand.js';
import { registerStart } from './startCommand.js';
import { registerRun } from './runCommand.js';
import { registerTail } from './tailCommand.js';
import { registerTopics } from './topicsCommand.js';

export function registerCommands(program: Command, ctx: Context): void {
  program.version(packageVersion(), '-V, --version', 'print the loopguard version');
  registerStart(program, ctx);
  registerConsole(program, ctx);
  registerDemo(program, ctx);
  registerReplay(program, ctx);
  registerRun(program, ctx);
  registerTopics(program, ctx);
  registerProduce(program, ctx);
  registerTail(program, ctx);
  registerReset(program, ctx);
}
