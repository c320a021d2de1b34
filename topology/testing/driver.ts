// Runs the real topology without a broker, the way Kafka Streams' TopologyTestDriver does:
// each event is keyed and partitioned exactly as `loopguard produce` would, given the next
// offset of its partition, and folded by that partition's task. Decisions come back in input
// order, with the same ids and source positions the Kafka runtime would give them.
import { partitionFor } from '../partitioner.js';
import { PartitionTask, type Decision } from '../task.js';
import { route, type ProcessorNode, type Topology } from '../topology.js';

export type PipeResult = { readonly ok: true; readonly decisions: readonly Decision[] } | { readonly ok: false; readonly reason: string };

/** One node's partition tasks and the next offset of each of its input partitions. */
interface NodeTasks {
  readonly tasks: Array<PartitionTask | undefined>;
  readonly nextOffset: number[];
}

export class InMemoryDriver {
  private readonly nodes = new Map<ProcessorNode, NodeTasks>();

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
    const r = this.foldParsed(node, event);
    return typeof r === 'string' ? { ok: false, reason: r } : { ok: true, decisions: r };
  }

  /** `pipeParsed` without a result object: the decisions, or why the event is invalid. */
  foldParsed(node: ProcessorNode, event: unknown): readonly Decision[] | string {
    const partition = partitionFor(node.process.keyOf(event), this.partitions);
    const n = this.tasksOf(node);
    const offset = n.nextOffset[partition]!;
    n.nextOffset[partition] = offset + 1;
    const task = (n.tasks[partition] ??= new PartitionTask(node, partition, { maxFutureSkewMs: this.topology.limits.maxFutureSkewMs, now: this.now, changelog: false }));
    // An invalid event keeps its offset, as it would in the input topic (produced, then dead-lettered).
    const r = task.foldAt(offset, event);
    task.compact(offset + 1);
    return r;
  }

  /** Total keys held in all stores (for memory checks). */
  get storedKeys(): number {
    let n = 0;
    for (const { tasks } of this.nodes.values()) for (const t of tasks) n += t?.size ?? 0;
    return n;
  }

  private tasksOf(node: ProcessorNode): NodeTasks {
    let n = this.nodes.get(node);
    if (n === undefined)
      this.nodes.set(node, (n = { tasks: new Array<PartitionTask | undefined>(this.partitions).fill(undefined), nextOffset: new Array<number>(this.partitions).fill(0) }));
    return n;
  }
}
