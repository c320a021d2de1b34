// Where integration tests get a real Kafka broker and a real schema registry, in this order:
// explicit KAFKA_BROKERS / SCHEMA_REGISTRY_URL; testcontainers when a Docker engine answers;
// else the jar-based stack (scripts/stack.mjs: Apache Kafka + Apicurio from Maven Central).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export interface Infra {
  readonly brokers: string;
  readonly registryUrl: string;
  readonly kind: 'env' | 'docker' | 'jar-stack';
  stop(): Promise<void>;
}

const root = join(import.meta.dirname, '..', '..');

function dockerAnswers(): boolean {
  const r = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { timeout: 5_000, encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() !== '';
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

async function withDocker(): Promise<Infra> {
  const { GenericContainer, Network, Wait } = await import('testcontainers');
  const network = await new Network().start();
  const port = await freePort();
  const kafka = await new GenericContainer('apache/kafka:4.1.1')
    .withNetwork(network)
    .withNetworkAliases('kafka')
    .withExposedPorts({ container: port, host: port })
    .withEnvironment({
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: `PLAINTEXT://:${port},INTERNAL://:19092,CONTROLLER://:9093`,
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://127.0.0.1:${port},INTERNAL://kafka:19092`,
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT',
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_INTER_BROKER_LISTENER_NAME: 'INTERNAL',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@kafka:9093',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
    })
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
    .start();
  const registry = await new GenericContainer('apicurio/apicurio-registry:3.0.9').withExposedPorts(8080).withWaitStrategy(Wait.forHttp('/apis/ccompat/v7/subjects', 8080)).start();
  return {
    kind: 'docker',
    brokers: `127.0.0.1:${port}`,
    registryUrl: `http://${registry.getHost()}:${registry.getMappedPort(8080)}/apis/ccompat/v7`,
    stop: async () => {
      await registry.stop();
      await kafka.stop();
      await network.stop();
    },
  };
}

function withJarStack(env: NodeJS.ProcessEnv): Infra {
  // scripts/stack.mjs keeps its state here too (the children inherit this environment).
  const stackDir = env.LOOPGUARD_STACK_DIR ?? join(root, '.stack');
  const status = spawnSync('node', [join(root, 'scripts/stack.mjs'), 'status'], { encoding: 'utf8' });
  const alreadyUp = status.status === 0;
  if (!alreadyUp) {
    const up = spawnSync('node', [join(root, 'scripts/stack.mjs'), 'up'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 });
    if (up.status !== 0) throw new Error(`could not start the jar-based Kafka + Apicurio stack (exit ${up.status})`);
  }
  const vars = Object.fromEntries(
    readFileSync(join(stackDir, 'env'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split('=', 2) as [string, string]),
  );
  return {
    kind: 'jar-stack',
    brokers: vars.KAFKA_BROKERS!,
    registryUrl: vars.SCHEMA_REGISTRY_URL!,
    // A stack someone else started (a developer's `npm run stack:up`) is theirs to stop.
    stop: async () => {
      if (!alreadyUp) spawnSync('node', [join(root, 'scripts/stack.mjs'), 'down'], { stdio: 'inherit' });
    },
  };
}

export async function startInfra(env: NodeJS.ProcessEnv = process.env): Promise<Infra> {
  if (env.KAFKA_BROKERS && env.SCHEMA_REGISTRY_URL) return { kind: 'env', brokers: env.KAFKA_BROKERS, registryUrl: env.SCHEMA_REGISTRY_URL, stop: async () => {} };
  if (dockerAnswers()) return withDocker();
  return withJarStack(env);
}
