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
import { TOOL_LOOP_STORES } from '../build.js';

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

/**
 * Tool-loop state is kept per run or per session (`loopguard.keyToolEventsBy`), in a store of
 * each kind: one cannot become the other (a run's state names no session, and a session's runs
 * sit in other partitions than they did). A start that finds the other kind's changelog holding
 * state refuses, rather than drop that state without a word. A changelog the processor is not
 * authorised to see (a secured cluster grants it only the one its keying uses) is not its own.
 */
export async function checkKeying(kafka: KafkaSession, config: LoopguardConfig): Promise<void> {
  const keyBy = config.toolLoop.keyBy ?? 'run';
  const other = keyBy === 'session' ? 'run' : 'session';
  const topic = `${config.topics.changelogPrefix}${TOOL_LOOP_STORES[other]}-changelog`;
  let counts: Map<string, number>;
  try {
    counts = await kafka.partitionCounts([topic]);
  } catch (e) {
    if (e instanceof LoopguardError && e.code === ERROR_CODES.kafkaAuthorization) return;
    throw e;
  }
  if (!counts.has(topic)) return;
  const marks = await kafka.watermarks(topic);
  if (![...marks.values()].some(({ low, high }) => high > low)) return;
  throw new LoopguardError(
    ERROR_CODES.configInvalid,
    `config loopguard.keyToolEventsBy is ${JSON.stringify(keyBy)}, but ${topic} holds tool-loop state kept by ${other}, which cannot move to state kept by ${keyBy}: set loopguard.keyToolEventsBy back to ${JSON.stringify(other)}, or delete ${topic} to start afresh (the ${other === 'run' ? 'runs' : 'sessions'} in it lose their state)`,
    { key: 'loopguard.keyToolEventsBy', topic },
  );
}
