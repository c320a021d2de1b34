import { KafkaJSNonRetriableError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { whileRetriable } from './admin.js';

// What kafkajs throws for error code 3 (its constructor takes the protocol error's description).
const notHosted = () =>
  new KafkaJSProtocolError({ message: 'This server does not host this topic-partition', type: 'UNKNOWN_TOPIC_OR_PARTITION', code: 3, retriable: true } as unknown as Error);

/** An operation that fails with each of `errors` in turn, then answers 'done'. */
function failing(...errors: Error[]) {
  const op = async () => {
    op.calls++;
    const e = errors.shift();
    if (e !== undefined) throw e;
    return 'done';
  };
  op.calls = 0;
  return op;
}

describe('whileRetriable', () => {
  it('tries again after retriable errors, and after kafkajs gave up retrying one', async () => {
    const op = failing(notHosted(), new KafkaJSNumberOfRetriesExceeded(notHosted(), { retryCount: 5, retryTime: 300 }));
    await expect(whileRetriable(5_000, op, 1)).resolves.toBe('done');
    expect(op.calls).toBe(3);
  });

  it('gives up at once on an error that is not retriable', async () => {
    const op = failing(new KafkaJSNonRetriableError('Topic with this name already exists'));
    await expect(whileRetriable(5_000, op, 1)).rejects.toThrow('already exists');
    expect(op.calls).toBe(1);
  });

  it('gives up once its time is over', async () => {
    const op = failing(...Array.from({ length: 1_000 }, notHosted));
    await expect(whileRetriable(30, op, 5)).rejects.toThrow('does not host');
    expect(op.calls).toBeGreaterThan(1);
    expect(op.calls).toBeLessThan(1_000);
  });
});
