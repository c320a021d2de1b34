// A progress bar on stderr, only when stderr is a terminal and the total is known.
import { createRequire } from 'node:module';
import type cliProgressModule from 'cli-progress';

// Loaded only when a bar is shown (a terminal): piped runs start faster without it.
const require = createRequire(import.meta.url);

export interface Progress {
  add(n: number): void;
  stop(): void;
}

const NONE: Progress = { add: () => {}, stop: () => {} };

export function progressBar(total: number | undefined, label: string): Progress {
  if (!process.stderr.isTTY || total === undefined || total === 0) return NONE;
  const cliProgress = require('cli-progress') as typeof cliProgressModule;
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: `${label} [{bar}] {percentage}% | {value}/{total} bytes | {eta_formatted} left`, hideCursor: true, etaBuffer: 50 },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  let done = 0;
  let shown = 0;
  return {
    add: (n) => {
      done += n;
      if (done - shown > total / 200) {
        bar.update(done);
        shown = done;
      }
    },
    stop: () => {
      bar.update(total);
      bar.stop();
    },
  };
}
