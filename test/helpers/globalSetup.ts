import type { TestProject } from 'vitest/node';
import { startInfra } from './infra.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string;
    registryUrl: string;
    infraKind: 'env' | 'docker' | 'jar-stack';
  }
}

export default async function setup(project: TestProject) {
  const infra = await startInfra();
  process.stderr.write(`integration tests use ${infra.kind}: Kafka ${infra.brokers}, registry ${infra.registryUrl}\n`);
  project.provide('kafkaBrokers', infra.brokers);
  project.provide('registryUrl', infra.registryUrl);
  project.provide('infraKind', infra.kind);
  return () => infra.stop();
}
