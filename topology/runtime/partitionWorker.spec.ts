import type avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { decisionCodec, toolEventCodec, type ValueCodec } from '../../schemas/codecs.js';
import { SchemaCatalog } from '../../schemas/registry.js';
import { buildTopology } from '../build.js';
import { configFrom } from '../config.js';
import { createLogger } from '../logger.js';
import { PartitionTask } from '../task.js';
import { PartitionWorker } from './partitionWorker.js';
import type { InRecord, Sink } from './port.js';

const log = createLogger({ log: { level: 'silent', redact: true } }, 'test');

/** A worker of partition 0 with tool-loop detection on, its catalog knowing its schemas without a registry. */
function world() {
  const config = configFrom(
    { tools: { loopDetection: { enabled: true } }, loopguard: { topics: { toolEvents: 'w.tool', verdicts: 'w.verdicts', deadLetter: 'w.dlq', changelogPrefix: 'w.' } } },
    { KAFKA_BROKERS: 'localhost:9092', SCHEMA_REGISTRY_URL: 'http://localhost:8081' },
  );
  const topology = buildTopology(config);
  const node = topology.nodeForTopic(config.topics.toolEvents)!;
  const writers = new Map<number, avro.Type>();
  const catalog = new SchemaCatalog({ getSchema: async (id: number) => writers.get(id) } as never);
  const ids = (catalog as unknown as { ids: Map<string, number> }).ids;
  const known = (topic: string, codec: ValueCodec<never>) => {
    writers.set(writers.size + 1, codec.type);
    ids.set(`${topic}-value`, writers.size);
  };
  known(config.topics.toolEvents, toolEventCodec as ValueCodec<never>);
  known(config.topics.verdicts, decisionCodec as ValueCodec<never>);
  known(node.store.changelogTopic, node.codecs.state as ValueCodec<never>);
  const task = new PartitionTask(node, 0, { maxFutureSkewMs: topology.limits.maxFutureSkewMs, now: () => 1_700_000_000_000 });
  const worker = new PartitionWorker(task, catalog, topology.topics, 1 << 20, log);
  const record = (offset: number): InRecord => {
    const run = `run-${offset % 50}`;
    const e = { type: 'tool_call', ts: 1_700_000_000_000 + offset, sessionKey: run, runId: run, toolCallId: `c${offset}`, toolName: 'read', argsHash: `read:${offset}` };
    return { topic: config.topics.toolEvents, partition: 0, offset, key: Buffer.from(run), value: catalog.encode(config.topics.toolEvents, toolEventCodec, e as never), timestamp: 0, headers: {} };
  };
  return { worker, record };
}

describe('PartitionWorker', () => {
  it('lets the event loop turn while it folds a batch, before any of the batch is handed to the sink', async () => {
    // Acknowledgements (librdkafka's delivery reports, kafkajs's responses) are read only when
    // the loop turns: a fold that never yields holds up other partitions' batches.
    const { worker, record } = world();
    const events: string[] = [];
    const sink: Sink = {
      begin: () => ({
        write: () => void events.push('write'),
        commit: async () => void events.push('commit'),
        abandon: async () => undefined,
      }),
      committedOffset: () => undefined,
      close: async () => undefined,
    };
    // One slice (2,000 records, folded before its decisions are written), far longer than the
    // few milliseconds a fold runs before it yields.
    const records = Array.from({ length: 2_000 }, (_, i) => record(i));
    const processing = worker.processBatch({ topic: records[0]!.topic, partition: 0, records, highWatermark: records.length, isActive: () => true }, sink);
    setImmediate(() => events.push('turn'));
    expect(await processing).toBe(1_999);
    expect(events).toEqual(['turn', 'write', 'commit']);
  });
});
