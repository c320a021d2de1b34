// kafkajs's log lines in pino: a settling cluster's retried errors below warn, explained once.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { firstTime, isSettling, kafkaLogger } from './logs.js';
import { kafkajs } from './patches.js';

const { logLevel } = kafkajs;

function capture() {
  const lines: Array<{ level: number; msg: string }> = [];
  const log = pino({ level: 'debug' }, { write: (l: string) => lines.push(JSON.parse(l) as { level: number; msg: string }) });
  const write = kafkaLogger(log, firstTime())();
  const entry = (level: number, message: string, extra: Record<string, unknown> = {}) =>
    write({ namespace: 'Connection', level, label: 'ERROR', log: { timestamp: 'now', logger: 'kafkajs', message, ...extra } });
  return { lines, entry };
}

describe('kafkajs logs', () => {
  it("put a settling broker's retried errors at debug, with one info line saying what they are", () => {
    const { lines, entry } = capture();
    entry(logLevel.ERROR, 'Response ListOffsets(key: 2, version: 3)', { error: 'This server is not the leader for that topic-partition' });
    entry(logLevel.ERROR, 'Response InitProducerId(key: 22, version: 1)', { error: "The coordinator is loading and hence can't process requests for this group" });
    entry(logLevel.ERROR, 'Failed to send messages: There is no leader for this topic-partition as we are in the middle of a leadership election');
    expect(lines.map((l) => l.level)).toEqual([30, 20, 20, 20]);
    expect(lines[0]!.msg).toMatch(/broker is still starting/);
  });
  it('keep error for what needs a person', () => {
    const { lines, entry } = capture();
    entry(logLevel.ERROR, 'Response Produce(key: 0, version: 7)', { error: 'Disk error when trying to access log file on the disk' });
    entry(logLevel.ERROR, 'Connection error: connect ECONNREFUSED 127.0.0.1:9092');
    expect(lines.map((l) => l.level)).toEqual([50, 50]);
  });
  it('recognise the messages of kafkajs its own error table gives', () => {
    expect(isSettling('Response Metadata', 'This is not the correct coordinator for this group')).toBe(true);
    expect(isSettling('Response Metadata', 'The request timed out')).toBe(false);
  });
});
