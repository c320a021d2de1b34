// The topology as data: which topic feeds which processor, where its state lives, where
// decisions and dead letters go. Built once from config; the in-memory driver and the Kafka
// runtime both run exactly this.
import { isRecord, type Parsed } from '../processors/kernel/contract.js';
import type { AnyProcess } from '../processors/kernel/process.js';
import type { Decision, StoreEntry, ValueCodec } from '../schemas/codecs.js';
import { ERROR_CODES, LoopguardError } from './errors.js';

/** How a node's records look on the wire, as Kafka Streams gives serdes to sources and sinks. */
export interface NodeCodecs {
  /** Values of the input topic. */
  readonly input: ValueCodec<Record<string, unknown>>;
  /** Values of the store's changelog. */
  readonly state: ValueCodec<StoreEntry<any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Decisions, on the decision topic. */
  readonly output: ValueCodec<Decision>;
}

export type { Decision };

// Nodes are held without their event type (the topology has several); each node's functions
// agree with one another on it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface ProcessorNode<E = any> {
  readonly name: string;
  readonly process: AnyProcess;
  readonly inputTopic: string;
  /** JSON `type` values that belong to this processor's input topic. */
  readonly eventTypes: readonly string[];
  readonly parse: (value: unknown) => Parsed<E>;
  /** The event's own id, when it has one (decision ids then survive redelivery). */
  readonly eventIdOf: (event: E) => string | undefined;
  /** The Kafka record key. Partitioning always follows `process.keyOf` (the state key). */
  readonly messageKeyOf: (event: E) => string;
  readonly store: { readonly name: string; readonly changelogTopic: string };
  readonly codecs: NodeCodecs;
}

export interface TopicNames {
  readonly toolEvents: string;
  readonly channelEvents: string;
  readonly verdicts: string;
  readonly deadLetter: string;
  /** Changelog topics are `<prefix><store>-changelog`. */
  readonly changelogPrefix: string;
}

export const DEFAULT_TOPICS: TopicNames = {
  toolEvents: 'loopguard.tool-events',
  channelEvents: 'loopguard.channel-events',
  verdicts: 'loopguard.verdicts',
  deadLetter: 'loopguard.dead-letter',
  changelogPrefix: 'loopguard.',
};

export interface TopologyLimits {
  /** Events whose ts is further ahead of the processing host's clock than this are invalid. */
  readonly maxFutureSkewMs: number;
}

export interface Topology {
  readonly nodes: readonly ProcessorNode[];
  readonly topics: TopicNames;
  readonly limits: TopologyLimits;
  nodeForTopic(topic: string): ProcessorNode | undefined;
  nodeForType(type: string): ProcessorNode | undefined;
  describe(): string;
}

export type Routed = { readonly ok: true; readonly node: ProcessorNode; readonly event: unknown } | { readonly ok: false; readonly reason: string };

/** Finds an event's processor by its JSON `type` and validates it there. */
export function route(topology: Topology, value: unknown): Routed {
  const type = isRecord(value) && Object.hasOwn(value, 'type') ? value.type : undefined;
  const node = typeof type === 'string' ? topology.nodeForType(type) : undefined;
  if (node === undefined) return { ok: false, reason: `type: unknown event type ${JSON.stringify(type ?? null)}` };
  const parsed = node.parse(value);
  return parsed.ok ? { ok: true, node, event: parsed.value } : { ok: false, reason: parsed.reason };
}

/** Every topic the topology touches, with the config key that names it. */
function topicsByKey(nodes: readonly ProcessorNode[], topics: TopicNames): Array<readonly [key: string, topic: string]> {
  const named = (['toolEvents', 'channelEvents', 'verdicts', 'deadLetter'] as const).map((k) => [`loopguard.topics.${k}`, topics[k]] as const);
  const known = new Set(named.map(([, t]) => t));
  const inputs = nodes.filter((n) => !known.has(n.inputTopic)).map((n) => [`the ${n.name} input topic`, n.inputTopic] as const);
  const changelogs = nodes.map((n) => [`loopguard.topics.changelogPrefix (the ${n.store.name} changelog)`, n.store.changelogTopic] as const);
  return [...named, ...inputs, ...changelogs];
}

// Each topic has one role: two roles on one topic would feed decisions back in as events, or
// mix one processor's state into another's. Config names the topics, so the error names keys.
function checkTopics(nodes: readonly ProcessorNode[], topics: TopicNames): void {
  const seen = new Map<string, string>();
  for (const [key, topic] of topicsByKey(nodes, topics)) {
    const other = seen.get(topic);
    if (other !== undefined)
      throw new LoopguardError(ERROR_CODES.configInvalid, `config ${other} and ${key} are both ${JSON.stringify(topic)}: each topic has one role`, { keys: [other, key], topic });
    seen.set(topic, key);
  }
  const inputs = new Set<string>();
  for (const n of nodes) {
    if (inputs.has(n.inputTopic))
      throw new LoopguardError(ERROR_CODES.configInvalid, `config: topic ${JSON.stringify(n.inputTopic)} feeds two processors`, { topic: n.inputTopic });
    inputs.add(n.inputTopic);
  }
}

export function makeTopology(nodes: readonly ProcessorNode[], topics: TopicNames, limits: TopologyLimits = { maxFutureSkewMs: 300_000 }): Topology {
  checkTopics(nodes, topics);
  const byTopic = new Map<string, ProcessorNode>();
  const byType = new Map<string, ProcessorNode>();
  const stores = new Set<string>();
  for (const n of nodes) {
    // Wiring mistakes in code, not config: config cannot make a processor read an output topic.
    if (stores.has(n.store.name)) throw new Error(`topology: store ${n.store.name} is used twice`);
    if ([topics.verdicts, topics.deadLetter].includes(n.inputTopic)) throw new Error(`topology: ${n.name} reads an output topic`);
    byTopic.set(n.inputTopic, n);
    stores.add(n.store.name);
    for (const t of n.eventTypes) byType.set(t, n);
  }
  return {
    nodes,
    topics,
    limits,
    nodeForTopic: (t) => byTopic.get(t),
    nodeForType: (t) => byType.get(t),
    describe: () =>
      [
        'Topology',
        ...nodes.map((n) => `  ${n.inputTopic} --> [${n.name}] (store ${n.store.name}, changelog ${n.store.changelogTopic}) --> ${topics.verdicts}`),
        `  invalid input --> ${topics.deadLetter}`,
      ].join('\n'),
  };
}
