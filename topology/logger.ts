// The one pino root. Logs go to stderr (stdout carries data: decisions, JSON lines). Tool
// arguments, results and chat text are redacted unless the config says otherwise.
import pino, { type Logger } from 'pino';
import type { LoopguardSettings } from './config.js';

export const REDACT_PATHS = ['args', 'result', 'error.message', 'text', 'content', '*.args', '*.result', '*.text', '*.content', 'event.args', 'event.result', 'value'];

/** `destination` replaces stderr (`start` routes log lines around its status line). */
export function createLogger(settings: Pick<LoopguardSettings, 'log'>, name = 'loopguard', destination?: pino.DestinationStream): Logger {
  return pino(
    { name, level: settings.log.level, redact: settings.log.redact ? { paths: REDACT_PATHS, censor: '[redacted]' } : [], base: { name } },
    destination ?? pino.destination({ fd: 2, sync: true }),
  );
}

/** `text` with the user:password of every URL in it masked: a registry URL may carry credentials. */
export function redactUrls(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^@/?#\s]*@/gi, '$1***@');
}

export type { Logger };
