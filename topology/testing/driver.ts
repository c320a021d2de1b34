// Runs the real topology without a broker, the way Kafka Streams' TopologyTestDriver does:
// each event is keyed and partitioned exactly as `loopguard produce` would, given the next
// offset of its partition, and folded by that partition's task. Decisions come back in input
// order, with the same ids and source positions the Kafka runtime would give them.
import { partitionFor } from '../partitioner.js';
import { PartitionTask, type Decision } from '../task.js';
import { route, type ProcessorNode, type Topology } from '../topology.js';

export type PipeResult = { readonly ok: true; readonly decisions: readonly Decision[] } | { readonly ok: false; readonly reason: string };

export class InMemoryDriver {
  private readonly tasks = new Map<string, PartitionTask>();
  private readonly nextOffset = new Map<string, number>();

  /** `now` is the clock the future-skew limit is checked against (replay: its own). */
  constructor(
    readonly topology: Topology,
    readonly partitions = 1,
    private readonly now: () => number = Date.now,
  ) {}

  /** Routes one event (the JSON form of docs/behaviour.md §1) by its `type`, as `loopguard produce` does. */
  pipe(value: unknown): PipeResult {
    const routed = route(this.topology, value);
    return routed.ok ? this.pipeParsed(routed.node, routed.event) : routed;
  }

  /** Folds an event its node has already parsed (replay parses in workers). */
  pipeParsed(node: ProcessorNode, event: unknown): PipeResult {
    const key = node.process.keyOf(event);
    const partition = partitionFor(key, this.partitions);
    const tp = `${node.inputTopic}/${partition}`;
    const offset = this.nextOffset.get(tp) ?? 0;
    this.nextOffset.set(tp, offset + 1);
    const task = this.task(node, partition);
    const r = task.processEvent({ topic: node.inputTopic, partition, offset, value: event }, event);
    task.drainDirty();
    task.compact(offset + 1);
    // An invalid event keeps its offset, as it would in the input topic (produced, then dead-lettered).
    if (r.kind === 'invalid') return { ok: false, reason: r.reason };
    return r.kind === 'decided' ? { ok: true, decisions: r.decisions } : { ok: true, decisions: [] };
  }

  /** Total keys held in all stores (for memory checks). */
  get storedKeys(): number {
    let n = 0;
    for (const t of this.tasks.values()) n += t.size;
    return n;
  }

  private task(node: ProcessorNode, partition: number): PartitionTask {
    const id = `${node.name}/${partition}`;
    let t = this.tasks.get(id);
    if (t === undefined) this.tasks.set(id, (t = new PartitionTask(node, partition, { maxFutureSkewMs: this.topology.limits.maxFutureSkewMs, now: this.now })));
    return t;
  }
}
