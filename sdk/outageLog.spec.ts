import { describe, expect, it } from 'vitest';
import { createLogger } from '../topology/logger.js';
import { OutageLog } from './outageLog.js';

function logged() {
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger({ log: { level: 'info', redact: false } }, 'test', { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
  return { log, lines };
}

const counts = { answeredByPolicy: 3, queued: 2, dropped: 0 };

describe('what a client says about an outage', () => {
  it('says it once when it starts, then at most once a minute, and once when it ends', () => {
    const { log, lines } = logged();
    let now = 1_000;
    const outage = new OutageLog(log, 'open', 60_000, () => now);
    const err = new Error('cannot connect to Kafka at 127.0.0.1:9092: ECONNREFUSED');
    for (let s = 0; s < 150; s++, now += 1_000) outage.failed(err, counts); // a failed reconnect every second for 150 s
    outage.back(counts, 150, err.message);
    expect(lines.map((l) => l.msg)).toEqual([
      expect.stringContaining('loopguard is unreachable'),
      'loopguard is still unreachable; reconnecting in the background',
      'loopguard is still unreachable; reconnecting in the background',
      'loopguard is reachable again: decisions resume, queued events are being sent',
    ]);
    expect(lines[0]).toMatchObject({ err: err.message, failure: 'open' });
    expect(lines[0]!.msg).toContain('failure policy (open)');
    expect(lines[1]).toMatchObject({ downForMs: 60_000, answeredByPolicy: 3 });
    // How many connects it took, and why the last one before failed: what a slow return was waiting for.
    expect(lines[3]).toMatchObject({ downForMs: 150_000, queued: 2, attempts: 150, lastErr: err.message });
  });

  it('says nothing of a connection that never went down, and starts afresh after one that came back', () => {
    const { log, lines } = logged();
    let now = 0;
    const outage = new OutageLog(log, 'closed', 60_000, () => now);
    outage.back(counts);
    expect(lines).toEqual([]);
    outage.failed(new Error('a'), counts);
    now += 5_000;
    outage.back(counts);
    now += 1_000;
    outage.failed(new Error('b'), counts);
    expect(lines.map((l) => l.msg)).toEqual([expect.stringContaining('unreachable'), expect.stringContaining('reachable again'), expect.stringContaining('unreachable')]);
    expect(lines[2]).toMatchObject({ err: 'b', failure: 'closed' });
  });

  it('says when the queue is full at the same bounded rate', () => {
    const { log, lines } = logged();
    let now = 0;
    const outage = new OutageLog(log, 'open', 60_000, () => now);
    outage.failed(new Error('down'), counts);
    for (let i = 0; i < 100; i++, now += 1_000) outage.dropped({ ...counts, dropped: i + 1 }, 10_000);
    const drops = lines.filter((l) => (l.msg as string).includes('the oldest are dropped'));
    expect(drops.map((l) => l.dropped)).toEqual([1, 61]);
  });
});
