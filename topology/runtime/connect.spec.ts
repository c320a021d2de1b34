import { describe, expect, it } from 'vitest';
import { configFrom } from '../config.js';
import { kafkaClientInUse } from './connect.js';
import { rdkafka } from './librdkafka/index.js';

describe('the Kafka client in use', () => {
  it('is kafkajs when asked for', () => {
    expect(kafkaClientInUse(configFrom({ loopguard: { kafka: { client: 'kafkajs' } } }).settings)).toBe('kafkajs');
  });
  it('is librdkafka when asked for and installed, else kafkajs', () => {
    expect(kafkaClientInUse(configFrom({ loopguard: { kafka: { client: 'librdkafka' } } }).settings)).toBe(rdkafka === undefined ? 'kafkajs' : 'librdkafka');
  });
});
