// TLS settings (loopguard.kafka.ssl, schemaRegistry.caFile, their environment variables): PEM
// files read at load, so every bad one refuses to start naming its key.
import { afterAll, describe, expect, it } from 'vitest';
import { configFrom, kafkaTls } from './config.js';
import { LoopguardError } from './errors.js';
import { pemFiles } from './testing/pem.js';

const pem = pemFiles();
afterAll(() => pem.remove());

const refusal = (raw: unknown, env: Record<string, string> = {}): string => {
  try {
    configFrom(raw, env);
  } catch (e) {
    expect(e).toBeInstanceOf(LoopguardError);
    return (e as Error).message;
  }
  throw new Error('expected a refusal');
};
const ssl = (v: unknown) => ({ loopguard: { kafka: { ssl: v } } });

describe('loopguard.kafka.ssl', () => {
  it('is off by default, on with the system CAs when true, on with files of its own when given them', () => {
    expect(kafkaTls(configFrom({}).settings.kafka.ssl)).toBeUndefined();
    expect(kafkaTls(configFrom(ssl(true)).settings.kafka.ssl)).toEqual({});
    const files = { caFile: pem.cert, certFile: pem.cert, keyFile: pem.encryptedKey, keyPassword: pem.keyPassword };
    expect(kafkaTls(configFrom(ssl(files)).settings.kafka.ssl)).toEqual(files);
  });

  it.each<[string, unknown, ...string[]]>([
    ['a missing CA file', { caFile: '/nonexistent/ca.pem' }, 'loopguard.kafka.ssl.caFile:', 'cannot read /nonexistent/ca.pem'],
    ['a CA file without a certificate', { caFile: 'NOT' }, 'loopguard.kafka.ssl.caFile:', 'holds no PEM certificate'],
    ['a key file without a key', { certFile: 'CERT', keyFile: 'CERT' }, 'loopguard.kafka.ssl.keyFile:', 'holds no PEM private key'],
    ['a certificate without its key', { certFile: 'CERT' }, 'loopguard.kafka.ssl.keyFile:', 'certFile and keyFile go together'],
    ['an encrypted key without its password', { certFile: 'CERT', keyFile: 'ENC' }, 'loopguard.kafka.ssl.keyFile:', 'cannot load', 'set keyPassword'],
    ['an encrypted key with a wrong password', { certFile: 'CERT', keyFile: 'ENC', keyPassword: 'wrong' }, 'loopguard.kafka.ssl.keyPassword:', 'with this password'],
    ['an unknown key', { caFil: 'x' }, 'loopguard.kafka.ssl'],
    ['a string', 'yes', 'must be true, false, or { caFile, certFile, keyFile, keyPassword }'],
  ])('refuses %s, naming the key', (_, value, ...parts) => {
    const files: Record<string, string> = { NOT: pem.notPem, CERT: pem.cert, ENC: pem.encryptedKey };
    const v = typeof value === 'object' ? Object.fromEntries(Object.entries(value as Record<string, string>).map(([k, x]) => [k, files[x] ?? x])) : value;
    const message = refusal(ssl(v));
    for (const p of parts) expect(message).toContain(p);
  });
});

describe('TLS from the environment', () => {
  it('turns TLS on with any of its files, over the config file field by field', () => {
    expect(kafkaTls(configFrom({}, { KAFKA_SSL_CA_FILE: pem.cert }).settings.kafka.ssl)).toEqual({ caFile: pem.cert });
    expect(kafkaTls(configFrom(ssl({ caFile: pem.cert }), { KAFKA_SSL_CERT_FILE: pem.cert, KAFKA_SSL_KEY_FILE: pem.key }).settings.kafka.ssl)).toEqual({
      caFile: pem.cert,
      certFile: pem.cert,
      keyFile: pem.key,
    });
    expect(configFrom({}, { KAFKA_SSL: 'TRUE' }).settings.kafka.ssl).toBe(true);
    expect(configFrom(ssl({ caFile: pem.cert }), { KAFKA_SSL: 'false' }).settings.kafka.ssl).toBe(false);
  });

  it.each<[Record<string, string>, ...string[]]>([
    [{ KAFKA_SSL: 'yes' }, 'env.KAFKA_SSL: must be true or false'],
    [{ KAFKA_SSL: 'false', KAFKA_SSL_CA_FILE: 'CERT' }, 'env.KAFKA_SSL: is false but KAFKA_SSL_CA_FILE set'],
    [{ KAFKA_SSL_CA_FILE: '/nonexistent.pem' }, 'env.KAFKA_SSL_CA_FILE: cannot read /nonexistent.pem'],
    [{ KAFKA_SSL_CERT_FILE: 'CERT' }, 'loopguard.kafka.ssl.keyFile: certFile and keyFile go together'],
    [{ KAFKA_SSL_CERT_FILE: 'CERT', KAFKA_SSL_KEY_FILE: 'ENC', KAFKA_SSL_KEY_PASSWORD: 'wrong' }, 'env.KAFKA_SSL_KEY_PASSWORD: cannot load'],
    [{ KAFKA_SSL_KEY_PASSWORD: '' }, 'env.KAFKA_SSL_KEY_PASSWORD: is set but empty'],
    [{ SCHEMA_REGISTRY_CA_FILE: 'NOT' }, 'env.SCHEMA_REGISTRY_CA_FILE:', 'holds no PEM certificate'],
  ])('refuses %j, naming the variable', (env, ...parts) => {
    const files: Record<string, string> = { NOT: pem.notPem, CERT: pem.cert, ENC: pem.encryptedKey };
    const message = refusal({}, Object.fromEntries(Object.entries(env).map(([k, v]) => [k, files[v] ?? v])));
    for (const p of parts) expect(message).toContain(p);
  });

  it("gives the registry's CA from the file or SCHEMA_REGISTRY_CA_FILE", () => {
    expect(configFrom({ loopguard: { schemaRegistry: { caFile: pem.cert } } }).settings.schemaRegistry.caFile).toBe(pem.cert);
    expect(configFrom({}, { SCHEMA_REGISTRY_CA_FILE: pem.cert }).settings.schemaRegistry.caFile).toBe(pem.cert);
    expect(configFrom({}).settings.schemaRegistry.caFile).toBeUndefined();
  });
});
