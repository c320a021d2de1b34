// What `start` has started, stopped in reverse order once, whether it ends by a signal, a
// failure or a fatal processor error. Only what was registered here is stopped.
import type { Logger } from '../../topology/logger.js';

export class Lifecycle {
  private readonly stops: Array<{ name: string; stop: () => Promise<void> | void }> = [];
  private readonly abort = new AbortController();
  private resolveStopped!: () => void;
  /** Resolves when a stop is requested. */
  readonly stopRequested = new Promise<void>((resolve) => {
    this.resolveStopped = resolve;
  });

  constructor(private readonly log: () => Logger) {}

  /** Aborted once a stop is requested, for work still starting up. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  onStop(name: string, stop: () => Promise<void> | void): void {
    this.stops.push({ name, stop });
  }

  requestStop(reason: string): void {
    if (this.abort.signal.aborted) return;
    this.log().info({ reason }, 'stopping');
    this.abort.abort();
    this.resolveStopped();
  }

  /** SIGINT and SIGTERM request a stop; a repeated signal while stopping is ignored. */
  trapSignals(): () => void {
    const onSignal = (signal: NodeJS.Signals) => this.requestStop(signal);
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    return () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    };
  }

  async stopAll(): Promise<void> {
    for (const { name, stop } of this.stops.splice(0).reverse()) {
      try {
        await stop();
      } catch (e) {
        this.log().error({ err: e, what: name }, 'stop failed');
        process.exitCode = 1;
      }
    }
  }
}
