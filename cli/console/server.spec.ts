import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../topology/logger.js';
import { serveConsole } from './server.js';
import { ConsoleView, type ConsoleDecision } from './view.js';

const log = createLogger({ log: { level: 'silent', redact: true } });
const view = new ConsoleView();
const server = await serveConsole(view, { port: 0, host: '127.0.0.1', topic: 'lg.verdicts', status: () => ({ ready: true }), portOption: '--port' }, log);
afterAll(() => server.close());

const block = (ts: number) =>
  ({
    id: `d${ts}`,
    source: { topic: 't', partition: 0, offset: ts },
    type: 'tool_decision',
    key: 'run-1',
    sessionKey: 's',
    runId: 'run-1',
    ts,
    toolCallId: null,
    toolName: 'read',
    decision: 'block',
    detector: 'generic_repeat',
    level: 'critical',
    count: 20,
    message: 'stop reading',
    pairedToolName: null,
    notify: true,
  }) as ConsoleDecision;

describe('the console server', () => {
  it('serves the page, its script and its style from the package, and nothing else', async () => {
    const page = await fetch(server.url);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    expect(html).toContain('<script src="/app.js">');
    expect((await fetch(`${server.url}app.js`)).headers.get('content-type')).toContain('javascript');
    expect((await fetch(`${server.url}style.css`)).headers.get('content-type')).toContain('text/css');
    expect((await fetch(`${server.url}../package.json`)).status).toBe(404);
    expect((await fetch(`${server.url}api/snapshot`, { method: 'POST' })).status).toBe(405);
  });
  it('answers the snapshot as JSON, with the topic and the guard status', async () => {
    view.add(block(1000));
    const s = (await (await fetch(`${server.url}api/snapshot`)).json()) as Record<string, unknown>;
    expect(s).toMatchObject({ topic: 'lg.verdicts', guard: { ready: true }, now: 1000, runs: [{ key: 'run-1', state: 'blocked', message: 'stop reading' }] });
  });
  it('streams a snapshot at once and a new one when the view changes', async () => {
    const res = await fetch(`${server.url}api/stream`);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    const next = async () => {
      let buf = '';
      while (!/^data: .*\n\n/m.test(buf)) {
        const chunk = await reader.read();
        if (chunk.done) throw new Error(`the event stream ended before a whole snapshot; it sent ${JSON.stringify(buf)}`);
        buf += chunk.value;
      }
      return JSON.parse(/^data: (.*)$/m.exec(buf)![1]!) as { now: number; decisions: number };
    };
    const first = await next();
    view.add(block(2000));
    const second = await next();
    expect(second.now).toBe(2000);
    expect(second.decisions).toBe(first.decisions + 1);
    await reader.cancel();
  });
  it('names the option to change a port that is taken', async () => {
    const port = Number(new URL(server.url).port);
    await expect(serveConsole(view, { port, host: '127.0.0.1', topic: 't', portOption: '--console-port' }, log)).rejects.toThrow(
      /already in use; pick another port with --console-port/,
    );
  });
});
