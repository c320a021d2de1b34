// Any failure tied to one record — the fold throwing, a decision or a state that does not
// encode, a state too big to send — sends that record to the dead-letter topic and leaves its
// key's state as it was before it: later records decide as if it never came, the partition
// goes on, and a restart restores and goes on too instead of failing on it again.
import { describe, expect, it } from 'vitest';
import { toolLoopNode } from '../topology/build.js';
import { createLogger } from '../topology/logger.js';
import { DEAD_LETTER_HEADERS } from '../topology/runtime/deadLetter.js';
import { StreamProcessor } from '../topology/runtime/processor.js';
import { InMemoryDriver } from '../topology/testing/driver.js';
import { makeTopology, type ProcessorNode } from '../topology/topology.js';
import { collectDecisions, lgOk, session, waitFor, world, writeEvents, type World } from './helpers/harness.js';

// Input offsets (one partition) of the records that fail, each in its own way.
const THROWS = 2;
const STATE_DOES_NOT_ENCODE = 3;
const STATE_TOO_LARGE = 4;
const DECISION_DOES_NOT_ENCODE = 5;
const TOOL: Readonly<Record<number, string>> = {
  [THROWS]: 'explode',
  [STATE_DOES_NOT_ENCODE]: 'poison-state',
  [STATE_TOO_LARGE]: 'huge-state',
  [DECISION_DOES_NOT_ENCODE]: 'bad-decision',
};

/**
 * The real tool-loop node with planted faults: the fold throws on one tool; a state whose
 * history holds another does not encode, or encodes too big (so every later state of the run
 * would too, as with a real bad state); a decision about a fourth does not encode.
 */
function faultyNode(w: World): ProcessorNode {
  const base = toolLoopNode(w.config);
  const { state, output } = base.codecs;
  const holds = (entry: { state: unknown }, tool: string) => (entry.state as { history: Array<{ toolName: string }> }).history.some((h) => h.toolName === tool);
  return {
    ...base,
    process: {
      ...base.process,
      evolve: (...args: Parameters<typeof base.process.evolve>) => {
        if ((args[1] as { toolName?: string }).toolName === TOOL[THROWS]) throw new Error('the fold exploded');
        return base.process.evolve(...args);
      },
    },
    codecs: {
      ...base.codecs,
      state: {
        ...state,
        toAvro: (entry) => {
          const avro = state.toAvro(entry) as { offset: unknown; state: Record<string, unknown> };
          if (holds(entry, TOOL[STATE_DOES_NOT_ENCODE]!)) return { ...avro, offset: 'not a long' };
          if (holds(entry, TOOL[STATE_TOO_LARGE]!)) return { ...avro, state: { ...avro.state, agentId: 'x'.repeat(1_100_000) } };
          return avro;
        },
      },
      output: {
        ...output,
        toAvro: (d) => {
          if ((d as Record<string, unknown>).toolName === TOOL[DECISION_DOES_NOT_ENCODE]) throw new Error('no such decision field');
          return output.toAvro(d);
        },
      },
    },
  };
}

const call = (i: number, toolName = 'read') => ({ type: 'tool_call', ts: 1000 + i, runId: 'r', toolName, args: { path: '/same' }, eventId: `e${i}` });
const withoutSource = (d: Record<string, unknown>) => {
  const { source: _, ...rest } = d;
  return rest;
};

/** The decisions the real node gives an event, in memory. */
function decide(driver: InMemoryDriver, event: object): Record<string, unknown>[] {
  const r = driver.pipe(event);
  if (!r.ok) throw new Error(r.reason);
  return [...r.decisions];
}

describe.each(['at_least_once', 'exactly_once'] as const)('per-record failures (%s)', (guarantee) => {
  it('dead-letters each failing record with its reason, keeps state as before it, and survives a restart', async () => {
    const w = world(`record-faults-${guarantee.replace(/_/g, '')}`, { tools: { loopDetection: { enabled: true, warningThreshold: 3, criticalThreshold: 6 } } }, 1, {
      processing: { guarantee },
    });
    const events = Array.from({ length: 8 }, (_, i) => call(i, TOOL[i]));
    const good = [0, 1, 6, 7].map((i) => events[i]!);
    await lgOk(['topics', 'create', '--config', w.configFile]);
    await lgOk(['produce', '--config', w.configFile, writeEvents(w.name, events)]);

    const topology = makeTopology([faultyNode(w)], w.config.topics);
    const log = createLogger({ log: { level: 'fatal', redact: true } }, 'test'); // the dead letters are expected
    const start = async () => {
      const { kafka, catalog } = session(w);
      const p = new StreamProcessor(w.config, topology, kafka, catalog, log, { maxEventBytes: 1 << 20, registryAttempts: 3 });
      await p.start();
      return p;
    };
    const got = await collectDecisions(w);
    const { kafka } = session(w);
    const dead: Record<string, string> = {};
    const reader = kafka.groupConsumer(`${w.name}-dlq`, { topics: [w.config.topics.deadLetter], fromBeginning: true });
    await reader.run({
      onBatch: async (b) => {
        for (const r of b.records) dead[r.headers[DEAD_LETTER_HEADERS.offset]!] = r.headers[DEAD_LETTER_HEADERS.reason]!;
        return b.records.at(-1)?.offset;
      },
    });

    const first = await start();
    const driver = new InMemoryDriver(makeTopology([toolLoopNode(w.config)], w.config.topics), 1);
    const expected = good.flatMap((e) => decide(driver, e));
    try {
      await waitFor('decisions for the good records and four dead letters', () => got.byId.size >= expected.length && Object.keys(dead).length >= 4);
      expect(dead).toEqual({
        [THROWS]: 'processing_failed',
        [STATE_DOES_NOT_ENCODE]: 'encode_failed',
        [STATE_TOO_LARGE]: 'state_too_large',
        [DECISION_DOES_NOT_ENCODE]: 'encode_failed',
      });
      expect(got.byId.size).toBe(expected.length);
      for (const d of expected) expect(withoutSource(got.byId.get(d.id as string)!)).toEqual(withoutSource(d));
      expect(expected.at(-1)).toMatchObject({ decision: 'warn', count: 3 });
    } finally {
      await first.stop();
    }

    // A new instance restores the state the good records left and decides on from there.
    const second = await start();
    try {
      await lgOk(['produce', '--config', w.configFile, writeEvents(`${w.name}-more`, [call(8)])]);
      const [next] = decide(driver, call(8));
      await waitFor('the decision after the restart', () => got.byId.has(next!.id as string));
      expect(withoutSource(got.byId.get(next!.id as string)!)).toEqual(withoutSource(next!));
      expect(Object.keys(dead)).toHaveLength(4);
    } finally {
      await second.stop();
    }
  });
});
