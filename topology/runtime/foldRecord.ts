// One input record through its partition's task, as a unit that happens completely or leaves
// no trace: decoded, validated, folded, and its decisions and its key's changelog entry
// encoded and checked against what a sink accepts. A failure tied to the record itself makes
// it a dead letter with a reason, and its key's state is put back as it was before it, so a
// record can neither stop its partition nor fail it again after a restart. Only infrastructure
// failures (a registry that does not answer) are thrown, for the batch to be retried.
import { DecodeError, type SchemaCatalog } from '../../schemas/registry.js';
import type { Decision, PartitionTask, StoreEntry } from '../task.js';
import type { TopicNames } from '../topology.js';
import { DEAD_LETTER_REASONS as REASONS } from './deadLetter.js';
import { MAX_RECORD_BYTES, type InRecord, type OutRecord } from './port.js';

export type Folded =
  | { readonly kind: 'dead'; readonly reason: string; readonly error: string; readonly cause?: unknown }
  /** Already in the restored state (a redelivery after a crash): nothing to write. */
  | { readonly kind: 'replayed' }
  | { readonly kind: 'decided'; readonly eventType: string; readonly key: string; readonly decisions: readonly Decision[]; readonly outputs: readonly OutRecord[]; readonly entry: StoreEntry; readonly state: Buffer };

/** An output the sink would refuse, for the record that produced it. */
class Unwritable extends Error {
  constructor(readonly reason: string, message: string) { super(message); }
}

const dead = (reason: string, error: string, cause?: unknown): Folded => ({ kind: 'dead', reason, error, cause });

export async function foldRecord(task: PartitionTask, catalog: SchemaCatalog, topics: TopicNames, maxEventBytes: number, r: InRecord): Promise<Folded> {
  if (r.value !== null && r.value.length > maxEventBytes) return dead(REASONS.oversized, `value is ${r.value.length} bytes, over the limit of ${maxEventBytes}`);
  let value: Record<string, unknown>;
  try {
    value = await catalog.decode(r.value, task.node.codecs.input);
  } catch (e) {
    if (e instanceof DecodeError) return dead(e.reason, e.message);
    throw e;
  }
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
    return { eventType: String(value.type), ...encodeOutputs(task, catalog, topics, r.partition, key, result.decisions) };
  } catch (e) {
    // States are immutable, so putting the previous entry back undoes the fold. The key stays
    // marked changed: the changelog gets its old entry again (or a tombstone for a new key).
    if (key !== undefined) task.restore(key, before ?? null);
    if (e instanceof Unwritable) return dead(e.reason, e.message);
    const message = e instanceof Error ? e.message : String(e);
    return folded ? dead(REASONS.encodeFailed, message, e) : dead(REASONS.processingFailed, message, e);
  }
}

function encodeOutputs(task: PartitionTask, catalog: SchemaCatalog, topics: TopicNames, partition: number, key: string, decisions: readonly Decision[]) {
  const { codecs, store } = task.node;
  const outputs = decisions.map((d): OutRecord => {
    const value = catalog.encode(topics.verdicts, codecs.output, d as Record<string, unknown>);
    const bytes = value.length + Buffer.byteLength(d.key);
    if (bytes > MAX_RECORD_BYTES) throw new Unwritable(REASONS.decisionTooLarge, `decision ${d.id} is ${bytes} bytes, over the limit of ${MAX_RECORD_BYTES}`);
    return { topic: topics.verdicts, partition, key: d.key, value };
  });
  const entry = task.get(key)!;
  const state = catalog.encode(store.changelogTopic, codecs.state, entry);
  const bytes = state.length + Buffer.byteLength(key);
  if (bytes > MAX_RECORD_BYTES) throw new Unwritable(REASONS.stateTooLarge, `the state of ${key} would be ${bytes} bytes, over the limit of ${MAX_RECORD_BYTES}`);
  return { kind: 'decided' as const, key, decisions, outputs, entry, state };
}
