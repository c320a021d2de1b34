// The secured mode of scripts/stack.mjs (`up --secure`): a CA and certificates of its own,
// SCRAM-SHA-512 users created when the storage is formatted, the standard authorizer with no
// access by default, one principal per role, and the registry over TLS.
//
// The ACLs are kafka-acls commands (aclCommands below), run as they are by Kafka's own tool and
// printed in the README for a cluster admin: one list, so what the stack runs is what the
// README says.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `up --secure --plaintext`, for benchmarks only: a PLAINTEXT listener too, whose clients are
 * User:ANONYMOUS, and the same ACLs for it and for the processor on everything named `bench-…`,
 * so that TLS + SASL against plaintext is the only difference between two pipelines of a run.
 */
export const BENCH_ACL = [
  '--add',
  '--allow-principal',
  'User:processor',
  '--allow-principal',
  'User:ANONYMOUS',
  '--operation',
  'All',
  '--topic',
  'bench-',
  '--group',
  'bench-',
  '--transactional-id',
  'bench-',
  '--resource-pattern-type',
  'prefixed',
];

/** SCRAM users: the admin (super user) and one per role; runner-b is another tenant's runner. */
export const USERS = ['admin', 'processor', 'runner', 'dispatcher', 'runner-b'];

/**
 * Tenants: topics, processor group and reader groups all start with the tenant's prefix. The
 * first is loopguard's default layout; `tenant-b.` is a second tenant with only a runner.
 */
export const TENANTS = [
  { prefix: 'loopguard.', group: 'loopguard', processor: 'processor', runners: ['runner'], dispatchers: ['dispatcher'] },
  { prefix: 'tenant-b.', group: 'tenant-b.loopguard', processor: undefined, runners: ['runner-b'], dispatchers: [] },
];

/** A tenant's topic names, as `loopguard.topics` names them with this prefix. */
export function tenantTopics(prefix) {
  return {
    toolEvents: `${prefix}tool-events`,
    channelEvents: `${prefix}channel-events`,
    verdicts: `${prefix}verdicts`,
    deadLetter: `${prefix}dead-letter`,
    changelogs: [`${prefix}tool-loop-runs-changelog`, `${prefix}bot-loop-conversations-changelog`],
  };
}

const allow = (principals) => principals.flatMap((p) => ['--allow-principal', `User:${p}`]);
const topics = (names) => names.flatMap((t) => ['--topic', t]);
const groups = (names) => names.flatMap((g) => ['--group', g]);
const PREFIXED = ['--resource-pattern-type', 'prefixed'];

/**
 * The kafka-acls arguments (after `--bootstrap-server … --command-config …`) that give each
 * role of a tenant exactly what it needs. A reader of topic T (a runner's or dispatcher's
 * follower, a restore, tail, the console) joins a group of its own named `T-<role>-<uuid>`,
 * so reading T needs Read on the groups prefixed `T-`. WRITE and READ include DESCRIBE.
 */
export function aclCommands(tenant) {
  const t = tenantTopics(tenant.prefix);
  const out = [];
  if (tenant.processor !== undefined) {
    const p = allow([tenant.processor]);
    out.push(['--add', ...p, '--operation', 'Read', ...topics([t.toolEvents, t.channelEvents, ...t.changelogs]), ...groups([tenant.group])]);
    out.push(['--add', ...p, '--operation', 'Write', ...topics([t.verdicts, t.deadLetter, ...t.changelogs])]);
    out.push(['--add', ...p, '--operation', 'Read', '--operation', 'Delete', ...groups(t.changelogs.map((c) => `${c}-`)), ...PREFIXED]);
    // exactly_once: the transactional ids are <group>.<input topic>.<partition>[.b]
    out.push(['--add', ...p, '--operation', 'Write', '--transactional-id', `${tenant.group}.`, ...PREFIXED]);
  }
  if (tenant.runners.length > 0) out.push(['--add', ...allow(tenant.runners), '--operation', 'Write', ...topics([t.toolEvents])]);
  if (tenant.dispatchers.length > 0) out.push(['--add', ...allow(tenant.dispatchers), '--operation', 'Write', ...topics([t.channelEvents])]);
  const readers = [...tenant.runners, ...tenant.dispatchers];
  if (readers.length > 0) {
    out.push(['--add', ...allow(readers), '--operation', 'Read', ...topics([t.verdicts])]);
    out.push(['--add', ...allow(readers), '--operation', 'Read', ...groups([`${t.verdicts}-`]), ...PREFIXED]);
  }
  return out;
}

function openssl(args, fail) {
  const r = spawnSync('openssl', args, { encoding: 'utf8' });
  if (r.error || r.status !== 0) fail(`openssl ${args.join(' ')} failed: ${r.error?.message ?? r.stderr.trim()}`);
}

/**
 * A CA, and certificates it signs for 127.0.0.1 / localhost: the broker's (server and client:
 * the broker presents it to its own controller listener too) and the registry's. PEM files,
 * keys unencrypted PKCS#8 (what Kafka's PEM key store reads), readable by their owner only.
 */
export function generateTls(dir, fail) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const f = (name) => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-noenc'];
  openssl(
    [
      'req',
      '-x509',
      ...ec,
      '-keyout',
      f('ca.key'),
      '-out',
      f('ca.pem'),
      '-days',
      '30',
      '-subj',
      '/CN=loopguard stack CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    fail,
  );
  for (const [name, usage] of [
    ['broker', 'serverAuth,clientAuth'],
    ['registry', 'serverAuth'],
  ]) {
    writeFileSync(f(`${name}.ext`), `subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=${usage}\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n`);
    openssl(['req', ...ec, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', `/CN=${name}`], fail);
    openssl(
      [
        'x509',
        '-req',
        '-in',
        f(`${name}.csr`),
        '-CA',
        f('ca.pem'),
        '-CAkey',
        f('ca.key'),
        '-set_serial',
        `0x${randomBytes(8).toString('hex')}`,
        '-days',
        '30',
        '-extfile',
        f(`${name}.ext`),
        '-out',
        f(`${name}.pem`),
      ],
      fail,
    );
  }
  // Kafka's PEM key store is one file: the key, then the certificate chain.
  writeFileSync(f('broker-keystore.pem'), readFileSync(f('broker.key'), 'utf8') + readFileSync(f('broker.pem'), 'utf8'), { mode: 0o600 });
  return { ca: f('ca.pem'), broker: { keystore: f('broker-keystore.pem') }, registry: { cert: f('registry.pem'), key: f('registry.key') } };
}

/** A password per user, base64url (no character a properties file or JAAS line would need to escape). */
export function passwords() {
  return Object.fromEntries(USERS.map((u) => [u, randomBytes(18).toString('base64url')]));
}

/**
 * The broker's listeners and security settings. Clients reach SASL_SSL only. The broker's own
 * listeners (inter-broker BROKER, CONTROLLER) are TLS with client certificates required: only
 * the holder of the broker's certificate (principal `broker`, by the mapping rule) gets in.
 */
export function secureProperties({ clientPort, brokerPort, controllerPort, plaintextPort, tls }) {
  const plaintext = plaintextPort === undefined ? '' : `,PLAINTEXT://127.0.0.1:${plaintextPort}`;
  return [
    `listeners=SASL_SSL://127.0.0.1:${clientPort},BROKER://127.0.0.1:${brokerPort},CONTROLLER://127.0.0.1:${controllerPort}${plaintext}`,
    `advertised.listeners=SASL_SSL://127.0.0.1:${clientPort},BROKER://127.0.0.1:${brokerPort}${plaintext}`,
    `listener.security.protocol.map=SASL_SSL:SASL_SSL,BROKER:SSL,CONTROLLER:SSL${plaintext ? ',PLAINTEXT:PLAINTEXT' : ''}`,
    'inter.broker.listener.name=BROKER',
    'sasl.enabled.mechanisms=SCRAM-SHA-512',
    'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;',
    'ssl.keystore.type=PEM',
    `ssl.keystore.location=${tls.broker.keystore}`,
    'ssl.truststore.type=PEM',
    `ssl.truststore.location=${tls.ca}`,
    'listener.name.broker.ssl.client.auth=required',
    'listener.name.controller.ssl.client.auth=required',
    'ssl.principal.mapping.rules=RULE:^CN=([^,]+)$/$1/,DEFAULT',
    'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    'allow.everyone.if.no.acl.found=false',
    'super.users=User:admin;User:broker',
  ];
}

/** kafka-storage's --add-scram arguments: every user exists before the broker first starts. */
export function scramArgs(pw) {
  return USERS.flatMap((u) => ['--add-scram', `SCRAM-SHA-512=[name=${u},password=${pw[u]}]`]);
}

/** A Java client's properties for the admin (kafka-acls --command-config). */
export function adminProperties(pw, ca) {
  return [
    'security.protocol=SASL_SSL',
    'sasl.mechanism=SCRAM-SHA-512',
    `sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="${pw.admin}";`,
    'ssl.truststore.type=PEM',
    `ssl.truststore.location=${ca}`,
    '',
  ].join('\n');
}

/** The registry (Quarkus) serving HTTPS only, with the stack's certificate. */
export function registryTlsArgs(port, tls) {
  return [
    `-Dquarkus.http.ssl-port=${port}`,
    '-Dquarkus.http.insecure-requests=disabled',
    `-Dquarkus.http.ssl.certificate.files=${tls.registry.cert}`,
    `-Dquarkus.http.ssl.certificate.key-files=${tls.registry.key}`,
  ];
}
