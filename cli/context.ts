// What every command gets from `main`: config loading (with its notices logged) and loggers.
import { loadConfig, type LoopguardConfig } from '../topology/config.js';
import { createLogger, type Logger } from '../topology/logger.js';

export interface Context {
  config(opts: { config?: string }): LoopguardConfig;
  logger(config: LoopguardConfig, name?: string): Logger;
}

export const context: Context = {
  config: (opts) => {
    const config = loadConfig(opts.config);
    // Built only when there is a notice: building pino's logger is a tenth of replay's start-up.
    if (config.warnings.length > 0) {
      const log = createLogger(config.settings);
      for (const w of config.warnings) log.warn({ warning: w }, 'config notice');
    }
    return config;
  },
  logger: (config, name) => createLogger(config.settings, name),
};
