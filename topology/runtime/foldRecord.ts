// One input record through its partition's task, as a unit that happens completely or leaves
// no trace: decoded, validated, folded, and its decisions (and, when asked, its key's
// changelog entry) encoded and checked against what a sink accepts. A failure tied to the
// record itself makes it a dead letter with a reason, and its key's state is put back as it
// was before it, so a record can neither stop its partition nor fail it again after a
// restart. Only infrastructure failures (a registry that does not answer) are thrown, for the
// batch to be retried.
import { DecodeError, type SchemaCatalog } from '../../schemas/registry.js';
import type { Decision, PartitionTask, StoreEntry } from '../task.js';
import type { TopicNames } from '../topology.js';
import type { Trip } from '../../processors/kernel/process.js';
import { DEAD_LETTER_REASONS as REASONS } from './deadLetter.js';
import type { FramedWriter } from './framedWriter.js';
import { MAX_RECORD_BYTES, type InRecord, type OutRecord } from './port.js';

export interface FoldContext {
  readonly task: PartitionTask;
  readonly catalog: SchemaCatalog;
  readonly topics: TopicNames;
  readonly maxEventBytes: number;
  /** Where decision and changelog values are encoded, framed with their subjects' schema ids. */
  readonly decisionValues: FramedWriter;
  readonly stateValues: FramedWriter;
}

export type Folded =
  | { readonly kind: 'dead'; readonly reason: string; readonly error: string; readonly cause?: unknown }
  /** Already in the restored state (a redelivery after a crash): nothing to write. */
  | { readonly kind: 'replayed' }
  | {
      readonly kind: 'decided';
      readonly eventType: string;
      /** What bounded state had to forget for this record. */
      readonly drops: readonly string[];
      readonly trips: readonly Trip[];
      readonly key: string;
      readonly decisions: readonly Decision[];
      readonly outputs: readonly OutRecord[];
      /** The key's changelog value after this record, when the state was checked. */
      readonly state: Buffer | undefined;
    };

/** An output the sink would refuse, for the record that produced it. */
export class Unwritable extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

const dead = (reason: string, error: string, cause?: unknown): Folded => ({ kind: 'dead', reason, error, cause });

/**
 * Each key's entry before the first record of a slice that folded into it: what undoes the
 * slice. Kept here rather than in each result, which would keep every state a batch went
 * through alive until its end (and the garbage collector copying them).
 */
export type Touched = Map<string, StoreEntry | undefined>;

/**
 * Folds `r`; with `checkState`, its key's new changelog value is encoded and checked too. A
 * decided record's key goes into `touched` with its entry before, unless already there.
 * Synchronous once the value's writer schema is known (every record but the first few): a
 * promise per record cost more than the fold of many.
 */
export function foldRecord(ctx: FoldContext, r: InRecord, checkState: boolean, touched: Touched): Folded | Promise<Folded> {
  const { task, catalog, maxEventBytes } = ctx;
  if (r.value !== null && r.value.length > maxEventBytes) return dead(REASONS.oversized, `value is ${r.value.length} bytes, over the limit of ${maxEventBytes}`);
  let value: Record<string, unknown> | undefined;
  try {
    value = catalog.decodeCached(r.value, task.node.codecs.input);
  } catch (e) {
    if (e instanceof DecodeError) return dead(e.reason, e.message);
    throw e;
  }
  if (value !== undefined) return foldDecoded(ctx, r, value, checkState, touched);
  return catalog.decode(r.value, task.node.codecs.input).then(
    (v) => foldDecoded(ctx, r, v, checkState, touched),
    (e: unknown) => {
      if (e instanceof DecodeError) return dead(e.reason, e.message);
      throw e;
    },
  );
}

function foldDecoded(ctx: FoldContext, r: InRecord, value: Record<string, unknown>, checkState: boolean, touched: Touched): Folded {
  const { task } = ctx;
  const parsed = task.node.parse(value);
  if (!parsed.ok) return dead(REASONS.invalid, parsed.reason);
  let key: string | undefined;
  let before: StoreEntry | undefined;
  let folded = false;
  try {
    key = task.node.process.keyOf(parsed.value);
    before = task.get(key);
    const result = task.processEvent({ topic: r.topic, partition: r.partition, offset: r.offset, value }, parsed.value);
    folded = true;
    if (result.kind === 'replayed') return { kind: 'replayed' };
    if (result.kind === 'invalid') return dead('code' in result ? String(result.code) : REASONS.invalid, result.reason);
    const outputs = result.decisions.map((d) => decisionRecord(ctx, r.partition, d));
    const state = checkState ? changelogValue(ctx, key, task.get(key)!) : undefined;
    if (!touched.has(key)) touched.set(key, before);
    return { kind: 'decided', eventType: String(value.type), drops: result.drops, trips: result.trips, key, decisions: result.decisions, outputs, state };
  } catch (e) {
    // States are immutable, so putting the previous entry back undoes the fold. The key stays
    // marked changed: the changelog gets its old entry again (or a tombstone for a new key).
    if (key !== undefined) task.restore(key, before ?? null);
    if (e instanceof Unwritable) return dead(e.reason, e.message);
    const message = e instanceof Error ? e.message : String(e);
    return folded ? dead(REASONS.encodeFailed, message, e) : dead(REASONS.processingFailed, message, e);
  }
}

function decisionRecord({ decisionValues, topics, task }: FoldContext, partition: number, d: Decision): OutRecord {
  const value = decisionValues.write(task.node.codecs.output, d as Record<string, unknown>);
  const bytes = value.length + Buffer.byteLength(d.key);
  if (bytes > MAX_RECORD_BYTES) throw new Unwritable(REASONS.decisionTooLarge, `decision ${d.id} is ${bytes} bytes, over the limit of ${MAX_RECORD_BYTES}`);
  return { topic: topics.verdicts, partition, key: d.key, value };
}

/** `key`'s changelog value; throws when it does not encode, Unwritable when a sink would refuse it. */
export function changelogValue({ stateValues, task }: FoldContext, key: string, entry: StoreEntry): Buffer {
  const value = stateValues.write(task.node.codecs.state, entry);
  const bytes = value.length + Buffer.byteLength(key);
  if (bytes > MAX_RECORD_BYTES) throw new Unwritable(REASONS.stateTooLarge, `the state of ${key} would be ${bytes} bytes, over the limit of ${MAX_RECORD_BYTES}`);
  return value;
}
