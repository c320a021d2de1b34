#!/usr/bin/env node
// Starts and stops the real infrastructure the integration tests need, without Docker:
// a single-node Apache Kafka in KRaft mode and Apicurio Registry (Confluent-compatible API),
// both fetched from Maven Central with Maven and run on free loopback ports.
//
//   node scripts/stack.mjs up     # start both, wait until they answer, write .stack/env
//   node scripts/stack.mjs up --secure   # the same secured (or LOOPGUARD_STACK_SECURE=1): TLS,
//                                        # SCRAM users, ACLs, registry over HTTPS (scripts/stack/secure.mjs)
//   node scripts/stack.mjs down   # stop both and remove their data
//   node scripts/stack.mjs status
//   node scripts/stack.mjs supervise   # `up`, then stay as the stack's supervisor (see below)
//
// LOOPGUARD_STACK_KAFKA_PORT and LOOPGUARD_STACK_REGISTRY_PORT fix the ports (default: free ones).
// LOOPGUARD_STACK_DIR moves the stack's folder (default .stack); artifacts stay in the local
// Maven repository (~/.m2) and in <stack dir>/cache between runs, or in LOOPGUARD_STACK_CACHE,
// which several stacks may share (each artifact is put in place by an atomic rename).
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer, connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_ACL, TENANTS, aclCommands, adminProperties, generateTls, passwords, registryTlsArgs, scramArgs, secureProperties } from './stack/secure.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const stackDir = process.env.LOOPGUARD_STACK_DIR ?? join(root, '.stack');
const cacheDir = process.env.LOOPGUARD_STACK_CACHE ?? join(stackDir, 'cache');
const pom = join(root, 'scripts/stack/pom.xml');
const APICURIO_VERSION = '3.0.9';
const APICURIO = `io.apicurio:apicurio-registry-app:${APICURIO_VERSION}:tar.gz:all`;
const START_TIMEOUT_MS = 180_000;
// 2.8 resolves a classified artifact without reading its parent POM (Apicurio does not publish
// io.apicurio:apicurio-registry:pom, which newer versions of the plugin insist on).
const DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:2.8';

const log = (msg) => process.stderr.write(`stack: ${msg}\n`);
const fail = (msg) => {
  log(`error: ${msg}`);
  process.exit(1);
};

function requireTool(cmd, args, hint) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.error || r.status !== 0) fail(`${cmd} is required but did not run (${r.error?.message ?? r.stderr.trim()}). ${hint}`);
}

function mvn(args) {
  const r = spawnSync('mvn', ['-q', '-B', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) fail(`mvn ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
}

// Named after the POM it was resolved from: a stack cache shared with a checkout whose POM
// differs (another Kafka version, kafka-tools or not) never hands it the wrong jars.
function kafkaClasspath() {
  const file = join(cacheDir, `kafka-${createHash('sha256').update(readFileSync(pom)).digest('hex').slice(0, 12)}.classpath`);
  if (!existsSync(file) || readFileSync(file, 'utf8').trim() === '') {
    log('resolving Apache Kafka with Maven');
    const partial = `${file}.${process.pid}.partial`;
    mvn(['-f', pom, `${DEPENDENCY_PLUGIN}:build-classpath`, `-Dmdep.outputFile=${partial}`]);
    renameSync(partial, file);
  }
  return readFileSync(file, 'utf8').trim();
}

// The registry's runnable distribution: copied out of the local Maven repository by Maven,
// unpacked with tar into a temporary folder, then renamed into place, so an interrupted or
// failed unpack never leaves a half-filled cache behind.
function apicurioHome() {
  const home = join(cacheDir, `apicurio-${APICURIO_VERSION}`);
  const jar = join(home, `apicurio-registry-app-${APICURIO_VERSION}-runner.jar`);
  if (existsSync(jar)) return { home, jar };
  log(`fetching ${APICURIO} with Maven`);
  const download = join(cacheDir, `download-${process.pid}`);
  rmSync(download, { recursive: true, force: true });
  mvn(['-f', pom, `${DEPENDENCY_PLUGIN}:copy`, `-Dartifact=${APICURIO}`, `-DoutputDirectory=${download}`, '-Dmdep.overWriteReleases=true']);
  const archive = join(download, `apicurio-registry-app-${APICURIO_VERSION}-all.tar.gz`);
  if (!existsSync(archive)) fail(`Maven did not deliver ${archive}`);
  const staging = `${home}.${process.pid}.partial`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const untar = spawnSync('tar', ['-xzf', archive, '-C', staging], { encoding: 'utf8' });
  if (untar.status !== 0) fail(`unpacking ${archive} failed: ${untar.stderr}`);
  if (!existsSync(join(staging, `apicurio-registry-app-${APICURIO_VERSION}-runner.jar`))) fail(`${archive} holds no runner jar`);
  rmSync(download, { recursive: true, force: true });
  // Another stack sharing the cache may have put its copy in place meanwhile, and may be running it.
  if (existsSync(jar)) {
    rmSync(staging, { recursive: true, force: true });
    return { home, jar };
  }
  rmSync(home, { recursive: true, force: true });
  renameSync(staging, home);
  return { home, jar };
}

function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

function portIsFree(port) {
  return new Promise((res) => {
    const srv = createServer();
    srv.once('error', () => res(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => res(true)));
  });
}

// The port named by `variable` (`loopguard start` passes the ones it chose: stable addresses a
// user writes into a config once), or a free one when it is unset or 0.
async function chosenPort(variable, what) {
  const raw = process.env[variable];
  if (raw === undefined || raw === '' || raw === '0') return freePort();
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`${variable} must be a port number, got ${JSON.stringify(raw)}`);
  if (!(await portIsFree(port))) fail(`port ${port} for ${what} (${variable}) is taken`);
  return port;
}

// Set once a supervisor is stopping its stack: nothing more is started.
let stopping = false;
// Set in a supervisor: `up` records it as the stack's owner.
let supervising = false;

function startDetached(name, args, env = {}) {
  if (stopping) process.exit(1);
  const out = openSync(join(stackDir, `${name}.log`), 'a');
  const child = spawn('java', args, { detached: true, stdio: ['ignore', out, out], env: { ...process.env, ...env } });
  child.unref();
  writeFileSync(join(stackDir, `${name}.pid`), String(child.pid));
  return child;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Polls `probe` until it resolves true; fails with the tail of the service's log otherwise.
async function waitUntil(name, child, probe) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let exited = null;
  child.once('exit', (code) => {
    exited = code;
  });
  while (Date.now() < deadline) {
    if (exited !== null) break;
    if (await probe().catch(() => false)) return;
    await sleep(250);
  }
  const tail = readFileSync(join(stackDir, `${name}.log`), 'utf8')
    .split('\n')
    .slice(-30)
    .join('\n');
  fail(`${name} ${exited !== null ? `exited with ${exited}` : 'did not answer in time'}; last log lines:\n${tail}`);
}

function tcpOpen(port) {
  return new Promise((res) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      res(true);
    });
    s.once('error', () => res(false));
  });
}

// A broker that accepts TCP may still be electing its controller; ask for metadata with the
// same client the project uses (a secured stack: as its admin, over TLS).
async function kafkaAnswers(brokers) {
  const { Kafka, logLevel } = (await import('kafkajs')).default;
  const admin = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING, retry: { retries: 0 }, ...adminClientOf() }).admin();
  try {
    await admin.connect();
    await admin.describeCluster();
    return true;
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

// The secured stack's admin credentials and CA as kafkajs settings; none for a plain stack.
function adminClientOf() {
  const file = join(stackDir, 'users', 'admin.env');
  if (!existsSync(file)) return {};
  const vars = envFile(file);
  return {
    ssl: { ca: [readFileSync(join(stackDir, 'tls', 'ca.pem'), 'utf8')] },
    sasl: { mechanism: 'scram-sha-512', username: vars.KAFKA_SASL_USERNAME, password: vars.KAFKA_SASL_PASSWORD },
  };
}

function envFile(file) {
  return Object.fromEntries(
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

async function registryAnswers(url, ca) {
  if (ca === undefined) return (await fetch(`${url}/subjects`)).ok;
  return new Promise((resolve) => {
    const req = request(`${url}/subjects`, { ca: readFileSync(ca) }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.once('error', () => resolve(false));
    req.end();
  });
}

const JVM_FLAGS = (classpath) => ['-Xms256m', '-Xmx1g', `-Dlog4j2.configurationFile=${join(root, 'scripts/stack/log4j2.properties')}`, '-cp', classpath];

function runJava(args) {
  return new Promise((resolve) => {
    const out = openSync(join(stackDir, 'acls.log'), 'a');
    const child = spawn('java', args, { stdio: ['ignore', out, out] });
    child.once('exit', (code) => resolve(code));
  });
}

// Kafka's own kafka-acls, two at a time: each is a JVM of a second or two.
async function applyAcls(classpath, brokers, plaintext) {
  const commands = [...TENANTS.flatMap(aclCommands), ...(plaintext ? [BENCH_ACL] : [])];
  const tool = ['-Xshare:auto', '-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', `-Dlog4j2.configurationFile=${join(root, 'scripts/stack/log4j2.properties')}`, '-cp', classpath];
  const base = ['org.apache.kafka.tools.AclCommand', '--bootstrap-server', brokers, '--command-config', join(stackDir, 'admin.properties')];
  let next = 0;
  const worker = async () => {
    while (next < commands.length) {
      const args = commands[next++];
      const code = await runJava([...tool, ...base, ...args]);
      if (code !== 0) fail(`kafka-acls ${args.join(' ')} exited ${code}; see ${join(stackDir, 'acls.log')}`);
    }
  };
  const t0 = Date.now();
  await Promise.all([worker(), worker()]);
  log(`${commands.length} kafka-acls commands applied (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}

async function up(secure = false, plaintext = false) {
  if (existsSync(join(stackDir, 'env')) && status(true)) {
    const running = existsSync(join(stackDir, 'users'));
    if (running !== secure) fail(`a ${running ? 'secured' : 'plain'} stack is running in ${stackDir}; stop it first (node scripts/stack.mjs down)`);
    log('already running');
    printEnv();
    return;
  }
  requireTool('java', ['-version'], 'Install a Java 17+ runtime (e.g. apt-get install openjdk-17-jre-headless).');
  requireTool('mvn', ['-v'], 'Install Apache Maven (e.g. apt-get install maven).');
  if (secure) requireTool('openssl', ['version'], 'Install OpenSSL (e.g. apt-get install openssl).');
  await down(true);
  mkdirSync(cacheDir, { recursive: true });
  const classpath = kafkaClasspath();
  const apicurio = apicurioHome();

  const [kafkaPort, registryPort] = [await chosenPort('LOOPGUARD_STACK_KAFKA_PORT', 'Kafka'), await chosenPort('LOOPGUARD_STACK_REGISTRY_PORT', 'the registry')];
  const [controllerPort, brokerPort, plaintextPort] = [await freePort(), await freePort(), await freePort()];
  const dataDir = join(stackDir, 'kafka-data');
  mkdirSync(dataDir, { recursive: true });
  const tls = secure ? generateTls(join(stackDir, 'tls'), fail) : undefined;
  const pw = secure ? passwords() : undefined;
  const props = join(stackDir, 'server.properties');
  const listeners = tls
    ? secureProperties({ clientPort: kafkaPort, brokerPort, controllerPort, tls, ...(plaintext ? { plaintextPort } : {}) })
    : [
        `listeners=PLAINTEXT://127.0.0.1:${kafkaPort},CONTROLLER://127.0.0.1:${controllerPort}`,
        `advertised.listeners=PLAINTEXT://127.0.0.1:${kafkaPort}`,
        'inter.broker.listener.name=PLAINTEXT',
        'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
      ];
  writeFileSync(
    props,
    [
      'process.roles=broker,controller',
      'node.id=1',
      `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
      ...listeners,
      'controller.listener.names=CONTROLLER',
      `log.dirs=${dataDir}`,
      'num.partitions=1',
      'offsets.topic.replication.factor=1',
      'offsets.topic.num.partitions=4',
      'transaction.state.log.replication.factor=1',
      'transaction.state.log.min.isr=1',
      'transaction.state.log.num.partitions=4',
      'group.initial.rebalance.delay.ms=0',
      'auto.create.topics.enable=false',
      'share.coordinator.state.topic.replication.factor=1',
      'share.coordinator.state.topic.min.isr=1',
      '',
    ].join('\n'),
  );
  const jvm = JVM_FLAGS(classpath);
  // Kafka's own ids (Uuid.randomUuid) never start with '-', which kafka-storage reads as an
  // option: one start in 64 failed ("argument --cluster-id/-t: expected one argument", CI).
  let clusterId;
  do clusterId = randomBytes(16).toString('base64url');
  while (clusterId.startsWith('-'));
  const fmt = spawnSync('java', [...jvm, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', props, ...(pw ? scramArgs(pw) : [])], { encoding: 'utf8' });
  if (fmt.status !== 0) fail(`formatting Kafka storage failed:\n${fmt.stdout}${fmt.stderr}`);

  log(`starting Kafka on 127.0.0.1:${kafkaPort}, Apicurio Registry on 127.0.0.1:${registryPort}${secure ? ' (secured: SASL_SSL, ACLs, HTTPS)' : ''}`);
  if (tls) writeSecrets(pw, tls);
  const kafka = startDetached('kafka', [...jvm, 'kafka.Kafka', props]);
  const registry = startDetached(
    'registry',
    [
      '-Xms128m',
      '-Xmx512m',
      ...(tls ? registryTlsArgs(registryPort, tls) : [`-Dquarkus.http.port=${registryPort}`]),
      '-Dquarkus.http.host=127.0.0.1',
      '-Dquarkus.log.level=WARN',
      '-Dquarkus.http.limits.max-body-size=20M',
      '-Dapicurio.ccompat.legacy-id-mode.enabled=true',
      '-jar',
      apicurio.jar,
    ],
    {},
  );

  const brokers = `127.0.0.1:${kafkaPort}`;
  const registryUrl = `${tls ? 'https' : 'http'}://127.0.0.1:${registryPort}/apis/ccompat/v7`;
  // A secured broker's ACLs go in while the registry is still starting.
  await Promise.all([
    waitUntil('kafka', kafka, async () => (await tcpOpen(kafkaPort)) && kafkaAnswers(brokers)).then(() => tls && applyAcls(classpath, brokers, plaintext)),
    waitUntil('registry', registry, () => registryAnswers(registryUrl, tls?.ca)),
  ]);
  if (supervising) writeFileSync(join(stackDir, 'owner'), `${JSON.stringify({ supervisor: process.pid, start: process.ppid })}\n`);
  const trust = tls ? `KAFKA_SSL_CA_FILE=${tls.ca}\nSCHEMA_REGISTRY_CA_FILE=${tls.ca}\n${plaintext ? `KAFKA_PLAINTEXT_BROKERS=127.0.0.1:${plaintextPort}\n` : ''}` : '';
  writeFileSync(join(stackDir, 'env'), `KAFKA_BROKERS=${brokers}\nSCHEMA_REGISTRY_URL=${registryUrl}\n${trust}`);
  log('up');
  printEnv();
  if (tls) log(`credentials: ${join(stackDir, 'users')}/<user>.env for ${Object.keys(pw).join(', ')}; kafka-acls --command-config ${join(stackDir, 'admin.properties')}`);
}

// One env file per SCRAM user (KAFKA_SASL_*, as loopguard reads them) and the admin's Java
// client properties, readable by their owner only.
function writeSecrets(pw, tls) {
  mkdirSync(join(stackDir, 'users'), { recursive: true, mode: 0o700 });
  for (const [user, password] of Object.entries(pw)) {
    writeFileSync(join(stackDir, 'users', `${user}.env`), `KAFKA_SASL_MECHANISM=scram-sha-512\nKAFKA_SASL_USERNAME=${user}\nKAFKA_SASL_PASSWORD=${password}\n`, { mode: 0o600 });
  }
  writeFileSync(join(stackDir, 'admin.properties'), adminProperties(pw, tls.ca), { mode: 0o600 });
}

function printEnv() {
  process.stdout.write(readFileSync(join(stackDir, 'env'), 'utf8'));
}

function pidOf(name) {
  const f = join(stackDir, `${name}.pid`);
  return existsSync(f) ? Number(readFileSync(f, 'utf8')) : null;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function status(quiet = false) {
  const states = ['kafka', 'registry'].map((n) => [n, pidOf(n)]).map(([n, pid]) => [n, pid !== null && alive(pid)]);
  if (!quiet) for (const [n, ok] of states) log(`${n}: ${ok ? 'running' : 'stopped'}`);
  return states.every(([, ok]) => ok);
}

async function down(quiet = false) {
  for (const name of ['kafka', 'registry']) {
    const pid = pidOf(name);
    if (pid === null || !alive(pid)) continue;
    process.kill(-pid, 'SIGCONT');
    process.kill(-pid, 'SIGTERM');
    const deadline = Date.now() + 30_000;
    while (alive(pid) && Date.now() < deadline) await sleep(100);
    if (alive(pid)) process.kill(-pid, 'SIGKILL');
    if (!quiet) log(`${name} stopped`);
  }
  for (const f of ['kafka.pid', 'registry.pid', 'env', 'owner', 'server.properties', 'kafka.log', 'registry.log', 'acls.log', 'admin.properties'])
    rmSync(join(stackDir, f), { force: true });
  for (const d of ['kafka-data', 'tls', 'users']) rmSync(join(stackDir, d), { recursive: true, force: true });
}

// `supervise`: what `loopguard start` runs, so the stack never outlives the start that owns
// it, however that start ends. The JVMs are started as `up` does (each in its own process
// group, so a Ctrl-C or a terminal's SIGHUP reaches only start, which stops the stack in
// order), under this process, which start spawns detached (the same signals do not reach it
// either) with a pipe as its stdin that nothing but start holds. EOF on that pipe means start
// is gone or asks for the stop: the kernel closes it however start ends, SIGKILL and the OOM
// killer included, at once and with no pid that could be reused, which a poll of a parent pid
// has to guess about. The parent pid is still watched, once a second, in case the pipe was
// inherited by something that outlives start. Either way the supervisor stops the JVMs, removes
// the data and exits; it also exits when the JVMs are gone (`down` from elsewhere). The pid of
// the supervisor is kept in <stack dir>/owner: a stack whose owner is dead was left behind.
async function supervise() {
  const parent = process.ppid;
  // start may be gone (its pipes closed): nothing to report to, and nothing to fail on.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  const stop = async (why) => {
    if (stopping) return;
    stopping = true;
    log(`stopping (${why})`);
    await down();
    process.exit(0);
  };
  process.stdin.on('end', () => stop('its loopguard start closed the pipe')).on('close', () => stop('its loopguard start closed the pipe'));
  process.stdin.on('error', () => stop('its loopguard start is gone'));
  process.stdin.resume();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(signal));
  setInterval(() => {
    if (process.ppid !== parent) void stop('its loopguard start is gone');
    else if (!stopping && existsSync(join(stackDir, 'env')) && !status(true)) void stop('its JVMs are gone');
  }, 1000);
  if (existsSync(join(stackDir, 'env')) && status(true)) fail(`a stack is already running in ${stackDir}; not taking it over`);
  supervising = true;
  await up();
}

// Fault injection for tests: stop the broker, start it again on the same port and data (or
// both: restart), or freeze and thaw the registry (SIGSTOP/SIGCONT: requests hang, as with a
// registry that is down, and its in-memory schemas survive).
async function stopKafka() {
  const pid = pidOf('kafka');
  if (pid === null || !alive(pid)) fail('kafka is not running');
  process.kill(-pid, 'SIGTERM');
  const deadline = Date.now() + 60_000;
  while (alive(pid) && Date.now() < deadline) await sleep(100);
  if (alive(pid)) process.kill(-pid, 'SIGKILL');
  log('kafka stopped');
}

async function startKafka() {
  const pid = pidOf('kafka');
  if (pid !== null && alive(pid)) fail('kafka is running already');
  const kafka = startDetached('kafka', [...JVM_FLAGS(kafkaClasspath()), 'kafka.Kafka', join(stackDir, 'server.properties')]);
  const env = envFile(join(stackDir, 'env'));
  const port = Number(env.KAFKA_BROKERS.split(':')[1]);
  await waitUntil('kafka', kafka, async () => (await tcpOpen(port)) && kafkaAnswers(env.KAFKA_BROKERS));
  log('kafka started');
}

async function restartKafka() {
  await stopKafka();
  await startKafka();
}

function signalRegistry(signal) {
  const pid = pidOf('registry');
  if (pid === null || !alive(pid)) fail('registry is not running');
  process.kill(pid, signal);
  log(`registry ${signal === 'SIGSTOP' ? 'frozen' : 'thawed'}`);
}

const cmd = process.argv[2];
const secureFlag = process.argv.includes('--secure') || process.env.LOOPGUARD_STACK_SECURE === '1';
if (cmd === 'up') await up(secureFlag, secureFlag && process.argv.includes('--plaintext'));
else if (cmd === 'supervise') await supervise();
else if (cmd === 'restart-kafka') await restartKafka();
else if (cmd === 'stop-kafka') await stopKafka();
else if (cmd === 'start-kafka') await startKafka();
else if (cmd === 'freeze-registry') signalRegistry('SIGSTOP');
else if (cmd === 'thaw-registry') signalRegistry('SIGCONT');
else if (cmd === 'down') await down();
else if (cmd === 'status') process.exit(status() ? 0 : 1);
else {
  process.stderr.write(
    'usage: node scripts/stack.mjs up [--secure]|down|status|supervise|restart-kafka|stop-kafka|start-kafka|freeze-registry|thaw-registry\n  up      start Kafka (KRaft) and Apicurio Registry on loopback (free ports, or LOOPGUARD_STACK_KAFKA_PORT /\n          LOOPGUARD_STACK_REGISTRY_PORT), write .stack/env\n          --secure (or LOOPGUARD_STACK_SECURE=1): SASL_SSL with SCRAM-SHA-512 users, ACLs (deny by\n          default), the registry over HTTPS; credentials in .stack/users/<user>.env, CA in .stack/tls\n          --secure --plaintext: a PLAINTEXT listener too (benchmarks: bench/runtime.mjs --help)\n  supervise  up, then stop both when stdin closes or the parent process is gone\n  down    stop both and remove their data\n  status  exit 0 when both run\n  restart-kafka, stop-kafka, start-kafka, freeze-registry, thaw-registry  fault injection for tests\n',
  );
  process.exit(cmd === '--help' || cmd === '-h' ? 0 : 2);
}
