import type { TestProject } from 'vitest/node';
import { startInfra } from './infra.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string;
    registryUrl: string;
    infraKind: 'env' | 'docker' | 'jar-stack';
    kafkaClient: 'kafkajs' | 'librdkafka';
  }
}

/** The whole integration project runs on one Kafka client: LOOPGUARD_TEST_KAFKA_CLIENT, default kafkajs. */
function kafkaClient(): 'kafkajs' | 'librdkafka' {
  const v = process.env.LOOPGUARD_TEST_KAFKA_CLIENT ?? 'kafkajs';
  if (v !== 'kafkajs' && v !== 'librdkafka') throw new Error(`LOOPGUARD_TEST_KAFKA_CLIENT must be kafkajs or librdkafka, got ${v}`);
  return v;
}

export default async function setup(project: TestProject) {
  const client = kafkaClient();
  const infra = await startInfra();
  process.stderr.write(`integration tests use ${infra.kind}: Kafka ${infra.brokers}, registry ${infra.registryUrl}\n`);
  project.provide('kafkaBrokers', infra.brokers);
  project.provide('registryUrl', infra.registryUrl);
  project.provide('infraKind', infra.kind);
  project.provide('kafkaClient', client);
  process.stderr.write(`integration tests run on the ${client} client\n`);
  return () => infra.stop();
}
