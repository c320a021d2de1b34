// The console over HTTP (node:http, no framework): the page from plain files shipped in the
// package, a JSON snapshot, and a server-sent-events stream that pushes each new snapshot.
// Every aggregation lives in ConsoleView; the page only renders what it is sent.
import { readFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import { ERROR_CODES, LoopguardError } from '../../topology/errors.js';
import type { Logger } from '../../topology/logger.js';
import { packageFile } from '../packageInfo.js';
import type { ConsoleView, Snapshot } from './view.js';

const STATIC: Readonly<Record<string, readonly [file: string, type: string]>> = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/style.css': ['style.css', 'text/css; charset=utf-8'],
};
const PUSH_EVERY_MS = 500;
const KEEPALIVE_MS = 15_000;
// The page loads nothing from elsewhere: it works offline and cannot be made to.
const HEADERS = { 'cache-control': 'no-store', 'content-security-policy': "default-src 'self'; img-src 'self' data:", 'x-content-type-options': 'nosniff' };

export interface ConsoleOptions {
  readonly port: number;
  readonly host: string;
  /** The decision topic, shown on the page. */
  readonly topic: string;
  /** The in-process guard's live status, when the console runs inside `start`. */
  readonly status?: () => unknown;
  /** The option that picks the port, named when it is taken. */
  readonly portOption: string;
}

export type ConsolePayload = Snapshot & { readonly topic: string; readonly guard: unknown };

export interface ConsoleServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function serveConsole(view: ConsoleView, opts: ConsoleOptions, log: Logger): Promise<ConsoleServer> {
  const clients = new Set<ServerResponse>();
  const payload = (): string => JSON.stringify({ ...view.snapshot(), topic: opts.topic, guard: opts.status?.() ?? null } satisfies ConsolePayload);
  let last = '';
  const push = setInterval(() => {
    if (clients.size === 0) return;
    const body = payload();
    if (body === last) return;
    last = body;
    for (const c of clients) c.write(`data: ${body}\n\n`);
  }, PUSH_EVERY_MS);
  const keepalive = setInterval(() => {
    for (const c of clients) c.write(': keepalive\n\n');
  }, KEEPALIVE_MS);

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { allow: 'GET, HEAD' }).end();
    if (path === '/api/snapshot') return void res.writeHead(200, { ...HEADERS, 'content-type': 'application/json' }).end(payload());
    if (path === '/api/stream') {
      res.writeHead(200, { ...HEADERS, 'content-type': 'text/event-stream', connection: 'keep-alive' });
      res.write(`retry: 2000\n\ndata: ${payload()}\n\n`);
      clients.add(res);
      req.on('close', () => clients.delete(res));
      return;
    }
    const asset = STATIC[path];
    if (asset === undefined) return void res.writeHead(404, { ...HEADERS, 'content-type': 'text/plain' }).end('not found\n');
    readFile(packageFile(`cli/console/static/${asset[0]}`)).then(
      (body) => res.writeHead(200, { ...HEADERS, 'content-type': asset[1] }).end(body),
      (e) => {
        log.error({ err: (e as Error).message, asset: asset[0] }, 'console asset missing');
        res.writeHead(500).end();
      },
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      clearInterval(push);
      clearInterval(keepalive);
      reject(
        e.code === 'EADDRINUSE'
          ? new LoopguardError(ERROR_CODES.usage, `${opts.host}:${opts.port} is already in use; pick another port with ${opts.portOption} (0: any free port)`)
          : e,
      );
    });
    server.listen(opts.port, opts.host, resolve);
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : opts.port;
  const url = `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}/`;
  log.info({ url }, 'console serving');
  return {
    url,
    close: async () => {
      clearInterval(push);
      clearInterval(keepalive);
      for (const c of clients) c.end();
      clients.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
