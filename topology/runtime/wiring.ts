// The schemas and topics a topology needs on the broker and the registry.
import { COMPATIBILITY, type SchemaCatalog } from '../../schemas/registry.js';
import type { LoopguardConfig } from '../config.js';
import type { Topology } from '../topology.js';
import type { TopicSpec } from './port.js';

/**
 * Events and decisions must stay readable by old and new clients alike (FULL_TRANSITIVE:
 * only optional fields with defaults may come and go); changelogs are read only by loopguard
 * itself, newest reader first (BACKWARD).
 */
export async function registerSchemas(catalog: SchemaCatalog, topology: Topology): Promise<void> {
  for (const node of topology.nodes) {
    await catalog.register(node.inputTopic, node.codecs.input, COMPATIBILITY.FULL_TRANSITIVE);
    await catalog.register(node.store.changelogTopic, node.codecs.state, COMPATIBILITY.BACKWARD);
  }
  for (const output of new Set(topology.nodes.map((n) => n.codecs.output))) {
    await catalog.register(topology.topics.verdicts, output, COMPATIBILITY.FULL_TRANSITIVE);
  }
}

export function topicSpecs(config: LoopguardConfig, topology: Topology): TopicSpec[] {
  const { partitions, replicationFactor } = config.settings.topics;
  const specs: TopicSpec[] = [];
  for (const node of topology.nodes) {
    specs.push({ topic: node.inputTopic, partitions, replicationFactor });
    specs.push({ topic: node.store.changelogTopic, partitions, replicationFactor, config: { 'cleanup.policy': 'compact', 'min.compaction.lag.ms': '0', 'segment.ms': '3600000' } });
  }
  specs.push({ topic: topology.topics.verdicts, partitions, replicationFactor });
  specs.push({ topic: topology.topics.deadLetter, partitions: 1, replicationFactor });
  return specs;
}
