// A client of the session may be closed by two owners at once: under exactly-once a revoked
// partition closes its transactional producer while the processor's stop closes the session,
// which closes every client it opened. Both must end. (librdkafka's binding never answered a
// disconnect asked while another was in flight, and `loopguard run` then hung in its stop.)
import { describe, expect, it } from 'vitest';
import { session, world } from './helpers/harness.js';

describe('closing a client twice at once', () => {
  it('ends both closes of a transactional sink, and the session close after them', async () => {
    const w = world('client-close');
    const { kafka } = session(w);
    const source = kafka.groupConsumer(w.config.settings.consumer.groupId, { topics: [w.config.topics.toolEvents], fromBeginning: true });
    const sink = await source.transactionalSink(`${w.name}.tx`);
    const closes = [sink.close(), sink.close(), kafka.close()];
    const ended: boolean[] = [];
    await Promise.all(closes.map((c, i) => c.then(() => (ended[i] = true))));
    expect(ended).toEqual([true, true, true]);
  }, 60_000);
});
