// A logger built on its first enabled call. Building pino's root logger with redaction compiles
// its redaction paths (~15 ms, a tenth of `replay`'s start-up); a run that logs nothing at its
// level never pays for it.
import pino from 'pino';
import type { LoopguardConfig } from '../topology/config.js';
import type { Logger } from '../topology/logger.js';

export type LazyLogger = Pick<Logger, 'debug' | 'info' | 'warn'>;

export function lazyLogger(config: LoopguardConfig, make: () => Logger): LazyLogger {
  const threshold = pino.levels.values[config.settings.log.level] ?? 0;
  let log: Logger | undefined;
  const at =
    (level: 'debug' | 'info' | 'warn') =>
    (obj: object, msg: string): void => {
      if ((pino.levels.values[level] ?? 0) < threshold) return;
      (log ??= make())[level](obj, msg);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn') } as LazyLogger;
}
