import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { LoopguardError } from '../topology/errors.js';
import { hostPort, someBrokerListens } from './reach.js';

describe('is Kafka there at all', () => {
  it('reads host and port of a broker, IPv6 included', () => {
    expect(hostPort('127.0.0.1:9092')).toEqual({ host: '127.0.0.1', port: 9092 });
    expect(hostPort('[::1]:19092')).toEqual({ host: '::1', port: 19092 });
    expect(hostPort('kafka-1.internal:9093')).toEqual({ host: 'kafka-1.internal', port: 9093 });
  });

  it('resolves when one broker of the list listens', async () => {
    const server = createServer((s) => s.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      await expect(someBrokerListens(['127.0.0.1:1', `127.0.0.1:${(server.address() as AddressInfo).port}`], 2_000)).resolves.toBeUndefined();
    } finally {
      server.close();
    }
  });

  it('rejects on the refusal, not the timeout, retriable and naming the brokers, when none listens', async () => {
    const e = await someBrokerListens(['127.0.0.1:1'], 3_600_000).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(LoopguardError);
    expect(e).toMatchObject({ retriable: true, message: 'cannot connect to Kafka at 127.0.0.1:1: ECONNREFUSED' });
  });
});
