// What each processor's topics carry on the wire, and the topics `topics create` makes.
import { COMPATIBILITY } from '../../schemas/registry.js';
import { botLoopStateCodec, channelEventCodec, decisionCodec, toolEventCodec, toolLoopStateCodec, type ValueCodec } from '../../schemas/codecs.js';
import { BOT_LOOP } from '../../processors/botLoop/index.js';
import { TOOL_LOOP } from '../../processors/toolLoop/index.js';
import type { LoopguardConfig } from '../config.js';
import type { ProcessorNode, Topology } from '../topology.js';
import type { SchemaCatalog } from '../../schemas/registry.js';
import type { TopicSpec } from './kafka.js';

export interface NodeWiring {
  readonly input: ValueCodec<Record<string, unknown>>;
  readonly state: ValueCodec<any>;
}

const WIRING: Readonly<Record<string, NodeWiring>> = {
  [TOOL_LOOP]: { input: toolEventCodec, state: toolLoopStateCodec },
  [BOT_LOOP]: { input: channelEventCodec, state: botLoopStateCodec },
};

export function wiringOf(node: ProcessorNode): NodeWiring {
  const w = WIRING[node.name];
  if (w === undefined) throw new Error(`no wire format for processor ${node.name}`);
  return w;
}

/**
 * Events and decisions must stay readable by old and new clients alike (FULL_TRANSITIVE:
 * only optional fields with defaults may come and go); changelogs are read only by loopguard
 * itself, newest reader first (BACKWARD).
 */
export async function registerSchemas(catalog: SchemaCatalog, topology: Topology): Promise<void> {
  for (const node of topology.nodes) {
    const w = wiringOf(node);
    await catalog.register(node.inputTopic, w.input, COMPATIBILITY.FULL_TRANSITIVE);
    await catalog.register(node.store.changelogTopic, w.state, COMPATIBILITY.BACKWARD);
  }
  await catalog.register(topology.topics.verdicts, decisionCodec, COMPATIBILITY.FULL_TRANSITIVE);
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
