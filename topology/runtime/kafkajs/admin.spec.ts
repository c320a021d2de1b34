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

/** A clock that moves only when whileRetriable pauses on it. */
function fakeClock() {
  const clock = { t: 0, now: () => clock.t, pause: async (ms: number) => void (clock.t += ms) };
  return clock;
}

describe('whileRetriable', () => {
  it('tries again after retriable errors, and after kafkajs gave up retrying one', async () => {
    const op = failing(notHosted(), new KafkaJSNumberOfRetriesExceeded(notHosted(), { retryCount: 5, retryTime: 300 }));
    const clock = fakeClock();
    await expect(whileRetriable(5_000, op, 1, clock)).resolves.toBe('done');
    expect(op.calls).toBe(3);
    expect(clock.t).toBe(2);
  });

  it('gives up at once on an error that is not retriable', async () => {
    const op = failing(new KafkaJSNonRetriableError('Topic with this name already exists'));
    const clock = fakeClock();
    await expect(whileRetriable(5_000, op, 1, clock)).rejects.toThrow('already exists');
    expect(op.calls).toBe(1);
    expect(clock.t).toBe(0);
  });

  // Tries at 0, 5, …, 30 ms: the try at the deadline is the last.
  it('gives up once its time is over, after the try at the deadline', async () => {
    const op = failing(...Array.from({ length: 1_000 }, notHosted));
    const clock = fakeClock();
    await expect(whileRetriable(30, op, 5, clock)).rejects.toThrow('does not host');
    expect(op.calls).toBe(7);
    expect(clock.t).toBe(30);
  });

  it('answers when the try at the deadline succeeds', async () => {
    const op = failing(...Array.from({ length: 6 }, notHosted));
    await expect(whileRetriable(30, op, 5, fakeClock())).resolves.toBe('done');
    expect(op.calls).toBe(7);
  });
});
