// PEM files for specs of TLS settings and handshakes, made with openssl (as the secured stack
// makes its own) in a temporary folder: a self-signed certificate for 127.0.0.1 and its key,
// the same key encrypted with a password, and a file that is neither.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PemFiles {
  readonly dir: string;
  readonly cert: string;
  readonly key: string;
  readonly encryptedKey: string;
  readonly keyPassword: string;
  readonly notPem: string;
  remove(): void;
}

export function pemFiles(): PemFiles {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-pem-'));
  const f = (name: string) => join(dir, name);
  const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  openssl([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-noenc',
    '-keyout',
    f('key.pem'),
    '-out',
    f('cert.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=spec',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ]);
  openssl(['pkcs8', '-topk8', '-in', f('key.pem'), '-out', f('encrypted-key.pem'), '-v2', 'aes-128-cbc', '-passout', 'pass:s3cret']);
  writeFileSync(f('not.pem'), 'not a PEM file\n');
  return {
    dir,
    cert: f('cert.pem'),
    key: f('key.pem'),
    encryptedKey: f('encrypted-key.pem'),
    keyPassword: 's3cret',
    notPem: f('not.pem'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
