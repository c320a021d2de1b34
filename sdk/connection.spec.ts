// The client's side of an outage without any broker: nothing listens on port 1 of loopback, so
// every connect is refused at once. (With a broker going away and coming back: test/outage.test.ts.)
import { createServer as httpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { LoopguardDispatcher, LoopguardRunner } from './index.js';
import { backoffMs, backoffUntil } from './connection.js';
import { createLogger } from '../topology/logger.js';

const nowhere = { brokers: ['127.0.0.1:1'], schemaRegistryUrl: 'http://127.0.0.1:1', timeoutMs: 3_600_000 };
/** The test times out long before an hour: an answer that waited for `timeoutMs` fails it. */

function logged() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ log: { level: 'info', redact: true } }, 'test', { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
  return { logger, lines };
}

describe('a client whose Kafka is unreachable', () => {
  it('connects degraded, answers every call by its policy at once, queues outcomes, and says so once', async () => {
    const { logger, lines } = logged();
    const runner = await LoopguardRunner.connect({ ...nowhere, failure: 'closed', logger });
    try {
      expect(runner.reachable).toBe(false);
      for (let i = 0; i < 50; i++) {
        const call = { sessionKey: 's', runId: 'r', toolName: 'read', args: { i } };
        const v = await runner.beforeToolCall(call);
        expect(v).toMatchObject({ decision: 'block', answeredBy: 'fail-closed' });
        expect(v.message).toBe(
          '[loopguard] "read" was not run: the loop guard could not be reached (its Kafka or schema registry is down) and this runner fails closed. Try again shortly.',
        );
        await runner.afterToolCall({ ...call, toolCallId: v.toolCallId }, { result: 'x' });
      }
      await runner.runEnded({ sessionKey: 's', runId: 'r' });
    } finally {
      await runner.close();
    }
    const said = lines.map((l) => l.msg as string);
    expect(said.filter((m) => m.startsWith('loopguard is unreachable'))).toHaveLength(1);
    expect(lines.find((l) => (l.msg as string).startsWith('loopguard is unreachable'))).toMatchObject({ err: 'cannot connect to Kafka at 127.0.0.1:1: ECONNREFUSED' });
    // Closing while down: the 51 events it could not send are counted, once.
    expect(lines.find((l) => l.msg === 'closing with events loopguard never received')).toMatchObject({ unsent: 51 });
  });

  it('lets the call through with failure open, and delivers bot messages likewise', async () => {
    const runner = await LoopguardRunner.connect({ ...nowhere, failure: 'open', logger: logged().logger });
    const dispatcher = await LoopguardDispatcher.connect({ ...nowhere, failure: 'open', logger: logged().logger });
    try {
      expect(await runner.beforeToolCall({ sessionKey: 's', toolName: 'read', args: {} })).toMatchObject({ decision: 'allow', answeredBy: 'fail-open' });
      const m = { type: 'bot_message' as const, channel: 'slack', accountId: 'a', conversationId: 'c', senderId: 'b1', receiverId: 'b2', ts: 1 };
      expect(await dispatcher.botMessage(m)).toMatchObject({ deliver: true, answeredBy: 'fail-open' });
      expect(await dispatcher.humanMessage({ type: 'human_message', channel: 'slack', accountId: 'a', conversationId: 'c', senderId: 'p', ts: 2 })).toMatchObject({
        deliver: true,
        answeredBy: 'adapter',
      });
    } finally {
      await Promise.all([runner.close(), dispatcher.close()]);
    }
  });

  it('refuses a bad option at once, naming it', async () => {
    await expect(LoopguardRunner.connect({ ...nowhere, brokers: ['kafka'], failure: 'open' })).rejects.toThrow('kafka.brokers.0: must be host:port, got "kafka"');
  });

  it('rejects connect() on a definitive refusal: a registry that answers 404 to everything (a wrong URL) is not down', async () => {
    // A broker port that accepts connections (the client gets no further than the registry) and a registry that refuses.
    const broker = createServer((s) => s.destroy());
    const registry = httpServer((_, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error_code":404,"message":"HTTP 404 Not Found"}'));
    await Promise.all([new Promise<void>((r) => broker.listen(0, '127.0.0.1', r)), new Promise<void>((r) => registry.listen(0, '127.0.0.1', r))]);
    try {
      const opts = {
        brokers: [`127.0.0.1:${(broker.address() as AddressInfo).port}`],
        schemaRegistryUrl: `http://127.0.0.1:${(registry.address() as AddressInfo).port}/wrong`,
        failure: 'open' as const,
        logger: logged().logger,
      };
      await expect(LoopguardRunner.connect(opts)).rejects.toMatchObject({
        retriable: false,
        message: expect.stringMatching(/^cannot register the schema of loopguard\.tool-events-value: /),
      });
    } finally {
      broker.close();
      registry.close();
    }
  });

  it('ends the backoff as soon as a broker listens again, when nothing listened at the last connect', async () => {
    let asked = 0;
    const listensAtThird = async () => ++asked >= 3;
    // An hour's backoff: only the broker listening again ends it within the test's time.
    await backoffUntil(3_600_000, listensAtThird, 10, new AbortController().signal);
    expect(asked).toBe(3);
    // Without `listens` (the last connect reached a broker), the backoff is served whole.
    const t = Date.now();
    await backoffUntil(200, undefined, 10, new AbortController().signal);
    expect(Date.now() - t).toBeGreaterThanOrEqual(195);
    // A client closing ends it at once.
    const stop = new AbortController();
    const waiting = backoffUntil(3_600_000, async () => false, 10, stop.signal);
    stop.abort();
    await expect(waiting).resolves.toBeUndefined();
  });

  it('waits between reconnects with capped, jittered backoff', () => {
    expect([0, 1, 2, 3, 4, 5, 10].map((n) => backoffMs(n, () => 0.5))).toEqual([250, 500, 1_000, 2_000, 4_000, 5_000, 5_000]);
    expect(backoffMs(0, () => 0)).toBe(125);
    expect(backoffMs(20, () => 0.999)).toBeCloseTo(7_495);
  });
});
