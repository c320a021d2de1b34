// What `run` checks before it joins the group: its schemas are registered and its topics
// exist with matching partition counts.
import { setTimeout as delay } from 'node:timers/promises';
import type { SchemaCatalog } from '../../schemas/registry.js';
import type { LoopguardConfig } from '../config.js';
import { ERROR_CODES, LoopguardError, isRetriable } from '../errors.js';
import { redactUrls, type Logger } from '../logger.js';
import type { Topology } from '../topology.js';
import type { KafkaSession } from './port.js';
import { registerSchemas, topicSpecs } from './wiring.js';

/** Registers the topology's schemas; a registry that does not answer is retried with jittered exponential backoff (capped at 10 s). */
export async function registerWithRetry(catalog: SchemaCatalog, topology: Topology, attempts: number, registryName: string, log: Logger): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await registerSchemas(catalog, topology);
      return;
    } catch (e) {
      if (!isRetriable(e))
        throw new LoopguardError(ERROR_CODES.schemaRegistry, `schema registry at ${registryName} refused our schemas: ${redactUrls((e as Error).message)}`, {}, false, {
          cause: e,
        });
      if (attempt >= attempts) {
        throw new LoopguardError(
          ERROR_CODES.schemaRegistry,
          `schema registry at ${registryName} did not accept our schemas after ${attempt} attempts: ${redactUrls((e as Error).message)}`,
          {},
          false,
          { cause: e },
        );
      }
      const wait = Math.min(10_000, 250 * 2 ** attempt) * (0.5 + Math.random() / 2);
      log.warn({ attempt, waitMs: Math.round(wait), err: redactUrls((e as Error).message) }, 'schema registry not ready; retrying');
      await delay(wait);
    }
  }
}

/** Every topic exists, and each changelog has as many partitions as its input (task p owns both p's). */
export async function checkTopics(kafka: KafkaSession, config: LoopguardConfig, topology: Topology): Promise<void> {
  const specs = topicSpecs(config, topology);
  const counts = await kafka.partitionCounts(specs.map((s) => s.topic));
  const missing = specs.filter((s) => !counts.has(s.topic)).map((s) => s.topic);
  if (missing.length > 0) throw new LoopguardError(ERROR_CODES.kafka, `missing topics: ${missing.join(', ')} (create them with \`loopguard topics create\`)`, { missing });
  for (const node of topology.nodes) {
    const [inputs, changelog] = [counts.get(node.inputTopic), counts.get(node.store.changelogTopic)];
    if (inputs !== changelog)
      throw new LoopguardError(ERROR_CODES.kafka, `${node.store.changelogTopic} has ${changelog} partitions but ${node.inputTopic} has ${inputs}; they must match`, {});
  }
}
