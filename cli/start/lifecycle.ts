// What `start` has started, stopped in reverse order once, however `start` ends: SIGINT,
// SIGTERM, SIGHUP (its terminal closed), a reader of its stdout or stderr gone (`start | head`,
// `start | tee` with tee killed), an uncaught error, or a fatal processor error. Only what was
// registered here is stopped. SIGKILL leaves no chance to: the embedded stack's supervisor sees
// this process gone and stops the stack itself (embeddedStack.ts).
import type { Logger } from '../../topology/logger.js';
import { takeOverOutputErrors } from '../outputErrors.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

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

  /**
   * Every way of ending that leaves time to clean up requests a stop instead; a repeated one
   * while stopping is ignored. Returns the function that restores the defaults.
   */
  trapEndings(): () => void {
    const onSignal = (signal: NodeJS.Signals) => this.requestStop(signal);
    for (const s of SIGNALS) process.on(s, onSignal);
    // A closed stdout or stderr: stop; later writes to it fail quietly (this handler again).
    const untakeOutput = takeOverOutputErrors((stream, e) => this.requestStop(`${stream} closed (${e.code ?? e.message})`));
    const onUncaught = (e: unknown) => {
      process.exitCode = 1;
      try {
        this.log().fatal({ err: e }, 'uncaught error; stopping');
      } catch {
        // the log's stream may be the thing that failed
      }
      this.requestStop('uncaught error');
    };
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', onUncaught);
    return () => {
      for (const s of SIGNALS) process.off(s, onSignal);
      untakeOutput();
      process.off('uncaughtException', onUncaught);
      process.off('unhandledRejection', onUncaught);
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
