// Where `start` reports while it runs. On a terminal: one status line, redrawn in place, with
// printed lines and log lines scrolling above it. Otherwise: printed lines on stdout, and the
// status as a JSON log line when readiness changes and every `everyMs`.
import type { Logger } from '../../topology/logger.js';
import { formatStatus, type GuardStatus } from './liveStats.js';

export interface StatusOutput {
  /** A line for the user (stdout). */
  print(line: string): void;
  /** A log line (already formatted, newline-terminated), for a logger writing through here. */
  log(line: string): void;
  update(status: GuardStatus): void;
  stop(): void;
}

const CLEAR = '\r\x1b[2K';

export function terminalStatus(out: NodeJS.WriteStream, err: NodeJS.WriteStream): StatusOutput {
  let shown = '';
  const redraw = () => {
    if (shown) out.write(shown);
  };
  const above = (stream: NodeJS.WriteStream, text: string) => {
    if (shown) out.write(CLEAR);
    stream.write(text);
    redraw();
  };
  return {
    print: (line) => above(out, `${line}\n`),
    log: (line) => above(err, line),
    update: (status) => {
      const width = Math.max(20, (out.columns ?? 100) - 1);
      const text = formatStatus(status);
      shown = `${CLEAR}${text.length > width ? `${text.slice(0, width - 1)}…` : text}`;
      out.write(shown);
    },
    stop: () => {
      if (shown) out.write(`${CLEAR}`);
      shown = '';
    },
  };
}

export function loggedStatus(out: NodeJS.WritableStream, err: NodeJS.WritableStream, log: () => Logger, everyMs: number): StatusOutput {
  let lastAt = 0;
  let lastReady: boolean | undefined;
  return {
    print: (line) => {
      out.write(`${line}\n`);
    },
    log: (line) => {
      err.write(line);
    },
    update: (status) => {
      const now = Date.now();
      if (status.ready === lastReady && now - lastAt < everyMs) return;
      lastAt = now;
      lastReady = status.ready;
      log().info({ status }, 'status');
    },
    stop: () => {},
  };
}
