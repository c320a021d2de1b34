// The client-neutral edge of the runtime: what the processor, the CLI and the SDK need from a
// Kafka client, in plain records and callbacks. One adapter folder (kafkajs/) implements it;
// another client is one more adapter. Nothing here names a client type.

export interface InRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly timestamp: number;
  readonly headers: Readonly<Record<string, string>>;
}

/** Every record names its partition: loopguard partitions by state key, never the client. */
export interface OutRecord {
  readonly topic: string;
  readonly partition: number;
  readonly key: string | Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * The largest key plus value a sink accepts in one record: the broker refuses a record batch
 * over its message.max.bytes (1 MiB + 12 by default), and a refused record would fail its
 * batch on every retry.
 */
export const MAX_RECORD_BYTES = 1_000_000;

/** Partitions per topic. */
export type Assignment = ReadonlyMap<string, readonly number[]>;

/** The next input offset to read once a batch's outputs are durable. */
export interface InputPosition {
  readonly topic: string;
  readonly partition: number;
  readonly nextOffset: number;
}

export interface Batch {
  readonly topic: string;
  readonly partition: number;
  readonly records: readonly InRecord[];
  /** The partition's end when the batch was fetched (for lag). */
  readonly highWatermark: number;
  /** False once the source is stopping or lost the partition: stop early, commit what is done. */
  isActive(): boolean;
}

/** Why a source stopped delivering, and whether the client will start it again on its own. */
export interface CrashReport {
  readonly error: Error;
  readonly restarting: boolean;
}

export interface SourceHandlers {
  /** Returns the last offset handled (undefined: none); the source resumes after it. */
  onBatch(batch: Batch): Promise<number | undefined>;
  /** Partitions gained; called before any batch of them. */
  onAssigned?(partitions: Assignment): void;
  /** Partitions lost (a rebalance, a crash, or stop); no batch of them follows. */
  onRevoked?(partitions: Assignment): void;
  onCrash?(report: CrashReport): void;
}

export interface SourceOptions {
  readonly topics: readonly string[];
  readonly fromBeginning: boolean;
  readonly readCommitted?: boolean;
  readonly concurrency?: number;
  readonly sessionTimeoutMs?: number;
}

/**
 * Makes batches' outputs durable together with their input positions, one batch at a time per
 * partition. Stages become durable in order: nothing of a stage is sent before every record
 * written before it is acknowledged (decisions before the changelog entries that would let a
 * restart skip them).
 */
export interface Sink {
  /** Starts one batch of one partition. */
  begin(): SinkBatch;
  /** The highest next offset of a partition known to be committed (undefined: none yet). */
  committedOffset(topic: string, partition: number): number | undefined;
  close(): Promise<void>;
}

/**
 * One batch on its way out. Writes are sent in the order they were made, each only once the
 * one before is acknowledged, while the caller goes on (folding the batch's next records).
 */
export interface SinkBatch {
  /** Queues stages behind everything written before; a failure surfaces from `commit`. */
  write(stages: ReadonlyArray<readonly OutRecord[]>): void;
  /**
   * Resolves once everything written is durable. The input position is committed after it:
   * in the same transaction (exactly-once), or once it is acknowledged, possibly after this
   * resolves (at-least-once: a restart re-reads records the changelog already covers, and the
   * task skips them).
   */
  commit(position: InputPosition): Promise<void>;
  /** Gives the batch up: waits for writes in flight, commits nothing (exactly-once: aborts). */
  abandon(): Promise<void>;
}

/** A consumer-group member: batches in, and sinks that commit this member's input offsets. */
export interface RecordSource {
  /** Resolves once the source is running; batches keep coming until `stop`. */
  run(handlers: SourceHandlers): Promise<void>;
  /**
   * At-least-once: each stage acknowledged in turn, then the input offset committed in the
   * background, together with other partitions' (one commit in flight at a time). `stop`
   * commits what is pending before it leaves the group. `topics`: what it will write to, made
   * known to its producers before the first batch.
   */
  sink(topics?: readonly string[]): Promise<Sink>;
  /**
   * Exactly-once: every stage and the input offset in one transaction. Opening it fences any
   * older producer with the same id and aborts its open transaction before it returns.
   */
  transactionalSink(transactionalId: string, topics?: readonly string[]): Promise<Sink>;
  stop(): Promise<void>;
}

export interface Sender {
  send(records: readonly OutRecord[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Reads only the partitions it is asked to follow, each from the end it had when `follow` was
 * called: a client that publishes a request to partition p follows p first, so the answer,
 * written after the request, cannot be missed, and partitions nobody asked for are not fetched.
 */
export interface PartitionFollower {
  start(onRecord: (r: InRecord) => Promise<void> | void): Promise<void>;
  follow(partition: number): Promise<void>;
  stop(): Promise<void>;
}

export interface TopicSpec {
  readonly topic: string;
  readonly partitions: number;
  readonly replicationFactor: number;
  readonly config?: Readonly<Record<string, string>>;
}

export interface AdminOps {
  /** Partition count per topic; missing topics are absent from the map. */
  partitionCounts(topics: readonly string[]): Promise<Map<string, number>>;
  /** Creates the topics that do not exist yet; returns their names. */
  createTopics(specs: readonly TopicSpec[]): Promise<string[]>;
  /** Deletes topics and waits until the broker no longer lists them. */
  deleteTopics(topics: readonly string[]): Promise<void>;
  /** Members of a consumer group (0 for a stopped or unknown group). */
  groupMembers(groupId: string): Promise<number>;
  /** Committed offset per partition (-1: none). */
  committedOffsets(groupId: string, topic: string): Promise<Map<number, number>>;
  /** Low and high watermark per partition. */
  watermarks(topic: string): Promise<Map<number, { low: number; high: number }>>;
  /** Per partition, the first offset whose timestamp is at or after `ts` (the high watermark if none). */
  offsetsForTime(topic: string, ts: number): Promise<Map<number, number>>;
  setCommittedOffsets(groupId: string, topic: string, offsets: ReadonlyMap<number, number>): Promise<void>;
}

export interface KafkaSession extends AdminOps {
  producer(): Promise<Sender>;
  groupConsumer(groupId: string, opts: SourceOptions): RecordSource;
  follower(topic: string): PartitionFollower;
  /**
   * Reads the committed records of the given partitions from their beginning up to the end
   * they had when called, and returns how many it read. Rejects soon after `signal` aborts.
   */
  readToEnd(topic: string, partitions: readonly number[], onRecord: (r: InRecord) => Promise<void> | void, signal?: AbortSignal): Promise<number>;
  close(): Promise<void>;
}
