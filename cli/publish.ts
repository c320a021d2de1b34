// Events onto their input topics: validated and routed by the topology, keyed and partitioned
// as the processor expects, Avro-encoded, sent in batches. `produce` and `start --demo` use it.
import type { SchemaCatalog } from '../schemas/registry.js';
import { ERROR_CODES, LoopguardError } from '../topology/errors.js';
import { partitionFor } from '../topology/partitioner.js';
import type { KafkaSession, OutRecord, Sender } from '../topology/runtime/port.js';
import { registerSchemas } from '../topology/runtime/wiring.js';
import { route, type Topology } from '../topology/topology.js';

const BATCH = 1000;

export interface Publisher {
  /** Queues one event (sending a full batch); returns why it is invalid, or undefined. */
  add(value: unknown): Promise<string | undefined>;
  /** Sends what is queued; returns how many events were sent in all. */
  flush(): Promise<number>;
  close(): Promise<void>;
}

export async function openPublisher(kafka: KafkaSession, catalog: SchemaCatalog, topology: Topology): Promise<Publisher> {
  await registerSchemas(catalog, topology);
  const counts = await kafka.partitionCounts(topology.nodes.map((n) => n.inputTopic));
  for (const n of topology.nodes)
    if (!counts.has(n.inputTopic)) throw new LoopguardError(ERROR_CODES.kafka, `topic ${n.inputTopic} does not exist (create it with \`loopguard topics create\`)`);
  const sender: Sender = await kafka.producer();
  let batch: OutRecord[] = [];
  let sent = 0;
  const flush = async () => {
    await sender.send(batch);
    sent += batch.length;
    batch = [];
    return sent;
  };
  // A line that validates may still fail to encode (JSON too deep to stringify, say): it is
  // that event's error, named like a validation error.
  const prepare = (value: unknown): OutRecord | string => {
    const routed = route(topology, value);
    if (!routed.ok) return routed.reason;
    const { node, event } = routed;
    try {
      return {
        topic: node.inputTopic,
        partition: partitionFor(node.process.keyOf(event), counts.get(node.inputTopic)!),
        key: node.messageKeyOf(event),
        value: catalog.encode(node.inputTopic, node.codecs.input, value as Record<string, unknown>),
      };
    } catch (e) {
      return `cannot be encoded: ${(e as Error).message}`;
    }
  };
  return {
    async add(value) {
      const record = prepare(value);
      if (typeof record === 'string') return record;
      batch.push(record);
      if (batch.length >= BATCH) await flush();
      return undefined;
    },
    flush,
    close: () => sender.close(),
  };
}
