// The wrapped MCP server: the SDK's stdio client transport, started with the proxy's whole
// environment (the server's own settings — API keys, paths — are passed to the proxy by the
// host that launches it) and its stderr passed through, remembering how the process ended so
// the client and the proxy's exit can name it.
import type { ChildProcess } from 'node:child_process';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export interface UpstreamCommand {
  readonly command: string;
  readonly args: readonly string[];
}

export interface UpstreamExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export class UpstreamTransport extends StdioClientTransport {
  private ended: UpstreamExit | undefined;
  private closing: Promise<void> | undefined;

  constructor(readonly upstream: UpstreamCommand) {
    super({ command: upstream.command, args: [...upstream.args], env: definedEnv(process.env), stderr: 'inherit' });
  }

  override async start(): Promise<void> {
    await super.start();
    // The SDK keeps the child private and reports only that it closed; its exit status is
    // what tells a crash from a clean stop, so it is read off the child here.
    const child = (this as unknown as { _process?: ChildProcess })._process;
    child?.once('exit', (code, signal) => {
      this.ended = { code, signal };
    });
  }

  /**
   * One close, however often asked: the SDK's client starts it without awaiting it when its
   * `initialize` fails, and forgets the process at once; a later close must still wait for the
   * server to be stopped (stdin closed, then SIGTERM, then SIGKILL), or the proxy exits first.
   */
  override close(): Promise<void> {
    return (this.closing ??= super.close());
  }

  /** How the server process ended; undefined while it runs (or if it never started). */
  get exit(): UpstreamExit | undefined {
    return this.ended;
  }
}

function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}
