// A secured broker's refusals sorted into one clear error each: the messages, librdkafka's log
// lines (taken from it against the secured stack), a connection the broker closed (looked into
// with a TLS handshake), and the session that checks before it connects. kafkajs's errors:
// kafkajs/client.spec.ts.
import { createServer as createTcpServer, type Server } from 'node:net';
import { readFileSync } from 'node:fs';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { configFrom } from '../config.js';
import { ERROR_CODES, isKafkaRefusal } from '../errors.js';
import { pemFiles } from '../testing/pem.js';
import { afterCheck } from './checked.js';
import { refusalInLog } from './librdkafka/preflight.js';
import type { KafkaSession } from './port.js';
import { diagnoseClosed, notAuthorised, speaksTls, tlsProblemOfText, topicAccess } from './refusals.js';

const settings = (extra: Record<string, unknown> = {}) =>
  configFrom({ loopguard: { kafka: { brokers: ['127.0.0.1:9093'], ssl: true, sasl: { mechanism: 'scram-sha-512', username: 'runner', password: 'p' }, ...extra } } }).settings;
const k = settings().kafka;

describe('notAuthorised', () => {
  it('names the operation, the resource and the user', () => {
    expect(notAuthorised('cannot send records', topicAccess('WRITE', 'loopguard.verdicts'), k).message).toBe(
      'cannot send records: not authorised to WRITE topic loopguard.verdicts (Kafka user runner)',
    );
    expect(notAuthorised('x', { operation: 'READ', resource: 'group', names: ['g'] }, settings({ sasl: undefined }).kafka).message).toBe('x: not authorised to READ group g');
    expect(notAuthorised('x', topicAccess('WRITE', 'a', 'b', 'c'), k).message).toBe('x: not authorised to WRITE topic a, b or c (Kafka user runner)');
    expect(notAuthorised('x', { operation: 'CREATE', resource: 'cluster', names: [] }, k).message).toBe('x: not authorised to CREATE on the cluster (Kafka user runner)');
  });

  it('says that a topic that may not be described may not be read or written either', () => {
    const e = notAuthorised('x', topicAccess('DESCRIBE', 'tenant-b.verdicts'), k);
    expect(e.message).toBe('x: not authorised to DESCRIBE topic tenant-b.verdicts, so neither to READ nor to WRITE it (Kafka user runner)');
    expect(e).toMatchObject({ code: ERROR_CODES.kafkaAuthorization, retriable: false, context: { operation: 'DESCRIBE', resource: 'topic', names: ['tenant-b.verdicts'] } });
    expect(isKafkaRefusal(e)).toBe(true);
  });
});

describe("librdkafka's log lines", () => {
  const line = (reason: string, state = 'AUTH_REQ') => `[thrd:sasl_ssl://127.0.0.1:9093/bootstrap]: sasl_ssl://127.0.0.1:9093/bootstrap: ${reason} (after 311ms in state ${state})`;

  it('a refused password', () => {
    const r = refusalInLog(k, line('SASL authentication error: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512'));
    expect(r).toMatchObject({
      code: ERROR_CODES.kafkaAuthentication,
      message:
        'cannot connect to Kafka at 127.0.0.1:9093: authentication failed for user runner (SCRAM-SHA-512): Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512',
    });
  });

  it('a certificate not trusted', () => {
    const r = refusalInLog(
      k,
      line(
        'SSL handshake failed: error:0A000086:SSL routines::certificate verify failed: broker certificate could not be verified, verify that ssl.ca.location is correctly configured or root CA certificates are installed (install ca-certificates package)',
        'SSL_HANDSHAKE',
      ),
    );
    expect(r).toMatchObject({
      code: ERROR_CODES.kafkaTls,
      message:
        "cannot connect to Kafka at 127.0.0.1:9093: TLS: the broker's certificate is not trusted; set loopguard.kafka.ssl.caFile (or KAFKA_SSL_CA_FILE) to the CA that signed it (error:0A000086:SSL routines::certificate verify failed)",
    });
  });

  it('a broker that hung up, before or after the handshake it answers unauthenticated', () => {
    expect(refusalInLog(k, line('Disconnected: connection closed by peer: receive 0 after POLLIN', 'APIVERSION_QUERY'))).toBe('closedBeforeAnswer');
    expect(refusalInLog(k, line('Disconnected: SSL connection closed by peer', 'UP'))).toBe('closedAfterHandshake');
    expect(refusalInLog(k, line('Connect to ipv4#127.0.0.1:9093 failed: Connection refused', 'CONNECT'))).toBeUndefined();
  });

  it.each([
    ['error:0A00010B:SSL routines::wrong version number', 'notTls'],
    ['certificate verify failed: Hostname mismatch', 'hostname'],
    ['error:0A000086:SSL routines::certificate verify failed: certificate has expired', 'expired'],
    ['error:0A00045C:SSL routines::tlsv13 alert certificate required', 'clientCertificate'],
  ])('OpenSSL’s %s is %s', (text, problem) => {
    expect(tlsProblemOfText(text)).toBe(problem);
  });
});

describe('a connection the broker closed', () => {
  const pem = pemFiles();
  const servers: Server[] = [];
  const sockets: Array<{ destroy(): void }> = [];
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    for (const s of servers) await new Promise((r) => s.close(r));
    pem.remove();
  });
  const listen = async (s: Server) => {
    servers.push(s);
    s.on('connection', (c) => sockets.push(c));
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    return `127.0.0.1:${(s.address() as { port: number }).port}`;
  };

  it('is TLS expected when the port completes a TLS handshake and loopguard.kafka.ssl is off', async () => {
    const tls = await listen(createTlsServer({ cert: readFileSync(pem.cert), key: readFileSync(pem.key) }, (s) => s.destroy()));
    const plain = await listen(createTcpServer((s) => s.destroy()));
    expect(await speaksTls(tls)).toBe(true);
    expect(await speaksTls(plain)).toBe(false);
    const off = settings({ brokers: [tls], ssl: false }).kafka;
    expect(await diagnoseClosed(off, false)).toMatchObject({
      code: ERROR_CODES.kafkaTls,
      message: expect.stringContaining('the broker expects TLS on this port, and loopguard.kafka.ssl is off'),
    });
    expect(await diagnoseClosed(settings({ brokers: [plain], ssl: false }).kafka, false)).toBeUndefined();
  });

  it('is SASL expected when it came after the handshake and no credentials are set', async () => {
    const none = settings({ sasl: undefined }).kafka;
    expect(await diagnoseClosed(none, true)).toMatchObject({ code: ERROR_CODES.kafkaAuthentication, message: expect.stringContaining('authentication required') });
    expect(await diagnoseClosed(k, true)).toBeUndefined();
  });
});

describe('afterCheck', () => {
  const session = (calls: string[]): KafkaSession =>
    ({
      partitionCounts: async () => (calls.push('partitionCounts'), new Map()),
      producer: async () => (calls.push('producer'), {}),
      close: async () => calls.push('close'),
    }) as never;

  it('checks once, before the first call that reaches the broker', async () => {
    const calls: string[] = [];
    let checks = 0;
    const s = afterCheck(async () => void checks++, session(calls));
    await s.partitionCounts([]);
    await s.producer();
    expect(checks).toBe(1);
    expect(calls).toEqual(['partitionCounts', 'producer']);
  });

  it('fails every call with the refusal the check found, and still closes', async () => {
    const calls: string[] = [];
    const refused = notAuthorised('x', topicAccess('DESCRIBE', 't'), k);
    const s = afterCheck(() => Promise.reject(refused), session(calls));
    await expect(s.partitionCounts([])).rejects.toBe(refused);
    await expect(s.producer()).rejects.toBe(refused);
    await s.close();
    expect(calls).toEqual(['close']);
  });
});
