// kafkajs's errors from a secured broker, sorted into one clear error each (topology/runtime/refusals.ts).
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { configFrom } from '../../config.js';
import { ERROR_CODES, isKafkaRefusal } from '../../errors.js';
import { createLogger } from '../../logger.js';
import { topicAccess } from '../refusals.js';
import { createClient, kafkaError } from './client.js';

const require = createRequire(import.meta.url);
const kafkajsErrors = require('kafkajs/src/errors') as Record<string, new (...a: unknown[]) => Error>;
const { createErrorFromCode } = require('kafkajs/src/protocol/error') as { createErrorFromCode(code: number): Error };
const k = configFrom({ loopguard: { kafka: { brokers: ['127.0.0.1:9093'], ssl: true, sasl: { mechanism: 'scram-sha-512', username: 'runner', password: 'p' } } } }).settings.kafka;

describe("kafkajs's errors", () => {
  const client = createClient({ kafka: k }, createLogger({ log: { level: 'silent', redact: true } }, 'spec'), '');
  const retriesExceeded = (cause: Error) => new kafkajsErrors.KafkaJSNumberOfRetriesExceeded!(cause, { retryCount: 0, retryTime: 0, cause });

  it('a refused password is an authentication failure, with the broker’s reason', () => {
    const e = kafkaError(
      'x',
      new kafkajsErrors.KafkaJSSASLAuthenticationError!(
        'SASL SCRAM SHA512 authentication failed: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512',
      ),
      client,
    );
    expect(e.message).toBe(
      'cannot connect to Kafka at 127.0.0.1:9093: authentication failed for user runner (SCRAM-SHA-512): Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512',
    );
    expect(e).toMatchObject({ code: ERROR_CODES.kafkaAuthentication, retriable: false });
  });

  it('a certificate not trusted is a TLS failure saying which setting to give, even under a retry error', () => {
    const cause = new kafkajsErrors.KafkaJSConnectionError!('Connection error: unable to verify the first certificate', { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    const e = kafkaError('x', retriesExceeded(cause), client);
    expect(e.message).toBe(
      "cannot connect to Kafka at 127.0.0.1:9093: TLS: the broker's certificate is not trusted; set loopguard.kafka.ssl.caFile (or KAFKA_SSL_CA_FILE) to the CA that signed it (unable to verify the first certificate)",
    );
    expect(e).toMatchObject({ code: ERROR_CODES.kafkaTls, retriable: false });
  });

  it('a missing ACL names what the call needed; a group kafkajs found no coordinator for, too', () => {
    expect(kafkaError('cannot send records', createErrorFromCode(29), client, topicAccess('WRITE', 'loopguard.verdicts')).message).toBe(
      'cannot send records: not authorised to WRITE topic loopguard.verdicts (Kafka user runner)',
    );
    const group = kafkaError('cannot start', new kafkajsErrors.KafkaJSGroupCoordinatorNotFound!('Failed to find group coordinator'), client, {
      operation: 'READ',
      resource: 'group',
      names: ['loopguard'],
    });
    expect(group.message).toMatch(/^cannot start: not authorised to READ group loopguard \(Kafka user runner\) \(the broker named no coordinator for it/);
    // Without the access it needed, still a refusal, never retried.
    expect(kafkaError('x', createErrorFromCode(53), client)).toMatchObject({ code: ERROR_CODES.kafkaAuthorization, retriable: false });
  });

  it('anything else keeps kafkajs’s verdict on retrying', () => {
    const refused = new kafkajsErrors.KafkaJSConnectionError!('Connection error: connect ECONNREFUSED 127.0.0.1:9093', { code: 'ECONNREFUSED' });
    expect(kafkaError('x', retriesExceeded(refused), client)).toMatchObject({ code: ERROR_CODES.kafka, retriable: true });
    expect(isKafkaRefusal(kafkaError('x', createErrorFromCode(3), client))).toBe(false);
  });
});
