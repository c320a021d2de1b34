// A batch folded in slices writes what it writes folded whole: the same decisions and dead
// letters in the same order, each slice's handed to the sink before the next slice folds, and
// each changed key's changelog entry once, after every decision.
import { describe, expect, it } from 'vitest';
import { COMPATIBILITY, SchemaCatalog } from '../../schemas/registry.js';
import type { ValueCodec } from '../../schemas/avro.js';
import { toolEventCodec, decisionCodec } from '../../schemas/codecs.js';
import { buildTopology } from '../build.js';
import { configFrom } from '../config.js';
import { createLogger } from '../logger.js';
import { PartitionTask } from '../task.js';
import { PartitionWorker } from './partitionWorker.js';
import type { InRecord, OutRecord, Sink } from './port.js';

const T0 = 1_700_000_000_000;
const config = configFrom({ tools: { loopDetection: { enabled: true } } }, { KAFKA_BROKERS: 'localhost:9092', SCHEMA_REGISTRY_URL: 'http://localhost:8081' });
const topology = buildTopology(config);
const node = topology.nodeForTopic(config.topics.toolEvents)!;

/** A catalog registered with a registry held in an array (its client's API as SchemaCatalog uses it). */
async function catalog(): Promise<SchemaCatalog> {
  const types: unknown[] = [];
  const rule = { compatibilityLevel: COMPATIBILITY.BACKWARD };
  let registering: unknown;
  const registry = {
    api: { Subject: { config: async () => ({ data: () => rule }), updateConfig: async () => undefined } },
    register: async () => ({ id: types.push(registering) }),
    getSchema: async (id: number) => types[id - 1],
  };
  const c = new SchemaCatalog(registry as never);
  for (const [topic, codec] of [
    [config.topics.toolEvents, toolEventCodec],
    [config.topics.verdicts, decisionCodec],
    [node.store.changelogTopic, node.codecs.state],
  ] as const) {
    registering = codec.type;
    await c.register(topic, codec as ValueCodec, COMPATIBILITY.BACKWARD);
  }
  return c;
}

/** Four runs calling away, two of them in a loop, and one record no schema reads. */
function records(c: SchemaCatalog): InRecord[] {
  const out: InRecord[] = [];
  for (let i = 0; i < 40; i++) {
    const run = `run-${i % 4}`;
    const value =
      i === 17
        ? Buffer.from('not avro')
        : c.encode(config.topics.toolEvents, toolEventCodec, {
            type: 'tool_call',
            ts: T0 + i,
            sessionKey: `s-${run}`,
            runId: run,
            toolCallId: `c${i}`,
            toolName: 'read',
            argsHash: i % 4 < 2 ? 'read:loop' : `read:${i}`,
          });
    out.push({ topic: config.topics.toolEvents, partition: 0, offset: i, key: Buffer.from(run), value, timestamp: T0 + i, headers: {} });
  }
  return out;
}

const flat = (r: OutRecord) => `${r.topic} ${String(r.key)} ${r.value === null ? 'null' : r.value.toString('hex')}`;

async function foldInSlices(sliceRecords: number) {
  const c = await catalog();
  const worker = new PartitionWorker(
    new PartitionTask(node, 0, { maxFutureSkewMs: topology.limits.maxFutureSkewMs, now: () => T0 }),
    c,
    topology.topics,
    1 << 20,
    createLogger({ log: { level: 'silent', redact: true } }),
    undefined,
    sliceRecords,
  );
  const writes: OutRecord[][][] = [];
  let committed: number | undefined;
  const sink: Sink = {
    begin: () => ({
      write: (stages) => void writes.push(stages.map((s) => [...s])),
      commit: async (p) => void (committed = p.nextOffset),
      abandon: async () => undefined,
    }),
    committedOffset: () => committed,
    close: async () => undefined,
  };
  const recs = records(c);
  const last = await worker.processBatch({ topic: config.topics.toolEvents, partition: 0, records: recs, highWatermark: recs.length, isActive: () => true }, sink);
  return { writes, last, committed };
}

describe('PartitionWorker slices', () => {
  it('writes the same records in the same order whatever the slice size', async () => {
    const whole = await foldInSlices(8_000);
    expect(whole.writes).toHaveLength(1);
    expect(whole.last).toBe(39);
    expect(whole.committed).toBe(40);
    const all = (w: OutRecord[][][]) => w.flat(2).map(flat);
    const verdicts = all(whole.writes).filter((r) => r.startsWith(config.topics.verdicts));
    expect(verdicts).toHaveLength(39);
    expect(all(whole.writes).filter((r) => r.startsWith(config.topics.deadLetter))).toHaveLength(1);
    for (const size of [1, 3, 7, 39, 40]) {
      const sliced = await foldInSlices(size);
      expect(all(sliced.writes)).toEqual(all(whole.writes));
      expect(sliced.committed).toBe(40);
      // One write per slice: each slice's decisions go out before the next folds, the last's with the changelog.
      expect(sliced.writes).toHaveLength(Math.ceil(40 / size));
      for (const w of sliced.writes.slice(0, -1)) expect(w.flat().every((r) => r.topic !== node.store.changelogTopic)).toBe(true);
    }
  });

  it('writes each changed key to the changelog once, after every decision', async () => {
    const { writes } = await foldInSlices(3);
    const final = writes.at(-1)!;
    const changelog = final.at(-1)!;
    expect(changelog.map((r) => String(r.key)).sort()).toEqual(['run-0', 'run-1', 'run-2', 'run-3']);
    expect(changelog.every((r) => r.topic === node.store.changelogTopic)).toBe(true);
  });
});
