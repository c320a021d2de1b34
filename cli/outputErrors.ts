// What a write error on stdout or stderr does. By default a reader that went away
// (`loopguard replay … | head`) is not a failure: stop quietly, as Unix tools do; any other
// write error is. A command that must clean up first (`start`) takes them over meanwhile.
export type OutputErrorHandler = (stream: 'stdout' | 'stderr', e: NodeJS.ErrnoException) => void;

let override: OutputErrorHandler | undefined;

/** Routes write errors to `handler` until the returned function is called. */
export function takeOverOutputErrors(handler: OutputErrorHandler): () => void {
  override = handler;
  return () => {
    if (override === handler) override = undefined;
  };
}

export function installOutputErrors(): void {
  for (const [name, stream] of [
    ['stdout', process.stdout],
    ['stderr', process.stderr],
  ] as const) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (override !== undefined) return override(name, e);
      if (e.code !== 'EPIPE' && stream === process.stdout) process.stderr.write(`loopguard: cannot write output: ${e.message}\n`);
      process.exit(e.code === 'EPIPE' ? 0 : 1);
    });
  }
}
