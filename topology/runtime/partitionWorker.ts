// One input partition at run time: each record folded through its PartitionTask (see
// foldRecord.ts), then the results made durable through a Sink in an order that makes a
// crash at any point harmless:
//   1. decisions and dead letters (acked by all in-sync replicas), a slice of records at a
//      time, sent while the next slice folds,
//   2. the changelog entries of the keys the batch changed, each key's latest once (each
//      carries its input offset),
//   3. the input offset commit (at-least-once: in the background, after 1 and 2).
// A crash before 2 re-folds the batch from the old state and re-emits identical decisions (same
// ids); a crash between 2 and 3 re-reads records whose offsets the restored state already
// holds, and the task skips them. Under exactly-once the sink makes all three one transaction.
import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import { DecodeError, type SchemaCatalog } from '../../schemas/registry.js';
import { ERROR_CODES, LoopguardError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { PartitionTask, StoreEntry } from '../task.js';
import type { TopicNames } from '../topology.js';
import { deadLetter } from './deadLetter.js';
import { changelogValue, foldRecord, type FoldContext, type Touched } from './foldRecord.js';
import { FramedWriter } from './framedWriter.js';
import type { Batch, InRecord, OutRecord, Sink } from './port.js';
import { SliceReport } from './report.js';
import { NO_TELEMETRY, type Telemetry } from './telemetry.js';

/**
 * Written by `loopguard reset` into a changelog partition: decisions for input offsets below
 * the header's value are rebuilt into state but not published again.
 */
export const EMIT_FROM_KEY = '__loopguard.emit-from';
export const EMIT_FROM_HEADER = 'loopguard.emit-from';

/**
 * One fold of a slice's records: what they write and what they report, and each key's entry
 * before the slice. Their results are not kept: a batch would hold every decision it made
 * until its end, and the garbage collector would copy them meanwhile.
 */
interface Pass {
  readonly report: SliceReport;
  /** Decisions and dead letters, in record order. */
  readonly outputs: OutRecord[];
  readonly touched: ReadonlyMap<string, StoreEntry | undefined>;
  /** The last record folded (undefined: none, the batch stopped first). */
  readonly last: InRecord | undefined;
}

/**
 * Records folded before their decisions are handed to the sink, to be sent while the next ones
 * fold. Each slice encodes every key it changed (see foldSlice), so a slice costs as many state
 * encodings as keys, however few records each had: at 2,000 a batch of the throughput bench
 * (about 7,000 records over 333 runs a partition) encoded each run four times to write it once,
 * and the kafkajs pipeline ran at 35k events/s against 51k at 8,000 (medians of 4 rounds of
 * bench/runtime.mjs, 300k backlog). The partitions' batches in flight at once keep the sink busy
 * while one folds; a slice still bounds what a batch holds before sending and how long a fold
 * keeps the event loop (about 0.2 s at 8,000).
 */
const SLICE_RECORDS = 8_000;

export class PartitionWorker {
  /** Input offsets below this are folded silently (a reset to a point in time rebuilds them). */
  private emitFrom = 0;
  private readonly ctx: FoldContext;
  /** Changelog values a careful pass encoded per record, reused while the key's entry is unchanged. */
  private readonly encoded = new Map<string, { entry: StoreEntry; value: Buffer }>();

  constructor(
    readonly task: PartitionTask,
    private readonly catalog: SchemaCatalog,
    private readonly topics: TopicNames,
    maxEventBytes: number,
    private readonly log: Logger,
    private readonly telemetry: Telemetry = NO_TELEMETRY,
    /** Records per slice (SLICE_RECORDS; tests take fewer, to have slices without 8,000 records). */
    private readonly sliceRecords = SLICE_RECORDS,
  ) {
    this.ctx = { task, catalog, topics, maxEventBytes, decisionValues: new FramedWriter(), stateValues: new FramedWriter() };
  }

  get changelogTopic(): string {
    return this.task.node.store.changelogTopic;
  }

  /** Loads one changelog record into the store (restore). */
  async restoreRecord(r: InRecord): Promise<void> {
    const key = r.key?.toString('utf8') ?? '';
    if (key === EMIT_FROM_KEY) {
      this.emitFrom = Number(r.headers[EMIT_FROM_HEADER] ?? 0);
      return;
    }
    try {
      this.task.restore(key, r.value === null ? null : await this.catalog.decode<StoreEntry>(r.value, this.task.node.codecs.state));
    } catch (e) {
      // A changelog entry nobody can read must not keep the partition from ever restoring: the
      // key keeps what earlier entries gave it, and records after that offset fold again.
      if (!(e instanceof DecodeError)) throw e;
      this.log.error({ key, offset: r.offset, reason: e.reason, err: e.message }, 'unreadable changelog entry skipped');
    }
  }

  /** Processes a batch; returns the last offset handled (or undefined if none). */
  async processBatch(batch: Batch, sink: Sink): Promise<number | undefined> {
    const started = performance.now();
    // Output schemas are registered before any partition is assigned; a missing one is a bug,
    // to fail the batch here rather than dead-letter every record.
    this.ctx.decisionValues.useSchema(this.catalog.idFor(this.topics.verdicts));
    this.ctx.stateValues.useSchema(this.catalog.idFor(this.changelogTopic));
    const out = sink.begin();
    // What the batch did, a report per slice, told once the batch is committed.
    const reports: SliceReport[] = [];
    // Each key's latest changelog record: written once per batch, after all its decisions.
    const changelog = new Map<string, OutRecord>();
    let last: InRecord | undefined;
    // The last slice's decisions go with the changelog, in one request under exactly-once.
    let held: OutRecord[] = [];
    try {
      // A slice's decisions are sent while the next slice folds.
      for (let from = 0; from < batch.records.length && batch.isActive(); from += this.sliceRecords) {
        // Folding awaits only settled promises, which never lets the event loop run: without a
        // turn of it before each slice, what was written before (this batch's earlier slices,
        // and the batches of the partitions processed beside this one) would reach its socket
        // only once every batch of a fetch had folded, and the broker and the readers wait.
        await setImmediatePromise();
        const slice = await this.foldSlice(batch, batch.records.slice(from, from + this.sliceRecords));
        for (const c of slice.changelog) changelog.set(String(c.key), c);
        reports.push(slice.report);
        last = slice.last ?? last;
        if (held.length > 0) out.write([held]);
        held = slice.outputs;
      }
      if (last === undefined) {
        await out.abandon();
        return undefined;
      }
      out.write([held, [...changelog.values()]]);
      await out.commit({ topic: batch.topic, partition: batch.partition, nextOffset: last.offset + 1 });
    } catch (e) {
      await out.abandon();
      throw e;
    }
    // Only below a committed input offset: a restart re-reads from there, and a key dropped
    // before a record it would re-read would fold that record from nothing.
    const committed = sink.committedOffset(batch.topic, batch.partition);
    if (committed !== undefined) this.task.compact(committed);
    const now = Date.now();
    for (const report of reports) report.emit(this.telemetry, this.log, now);
    this.telemetry.batch((performance.now() - started) / 1000);
    this.telemetry.lag(batch.topic, batch.partition, Math.max(0, batch.highWatermark - last.offset - 1));
    return last.offset;
  }

  // Encoding a key's state costs more than folding a record into it (and grows with the
  // state), so a slice encodes each changed key once, at its end, before any of its decisions
  // is sent. Should one not be writable, the slice is undone and folded again checking every
  // record's state: only the records that made it so become dead letters. A state unwritable
  // only between two records of one slice is never written, so it fails nothing.
  private async foldSlice(batch: Batch, records: readonly InRecord[]): Promise<Pass & { changelog: OutRecord[] }> {
    const first = await this.foldPass(batch, records, false);
    const changelog = this.changelogRecords(batch.partition);
    if (!changelog.unwritable) return { ...first, changelog: changelog.records };
    this.log.warn({ topic: batch.topic, partition: batch.partition }, 'a changed state cannot be written; folding the slice again record by record');
    for (const [key, entry] of first.touched) this.task.restore(key, entry ?? null);
    const again = await this.foldPass(batch, records, true);
    const checked = this.changelogRecords(batch.partition);
    if (checked.unwritable) throw new LoopguardError(ERROR_CODES.internal, 'a state checked record by record is still not writable', { partition: batch.partition });
    // Keys the first pass changed without a record of theirs (sweeps) keep their entries.
    return { ...again, changelog: [...changelog.records.filter((c) => !first.touched.has(String(c.key))), ...checked.records] };
  }

  private async foldPass(batch: Batch, records: readonly InRecord[], checkState: boolean): Promise<Pass> {
    const report = new SliceReport();
    const outputs: OutRecord[] = [];
    const touched: Touched = new Map();
    let last: InRecord | undefined;
    for (const r of records) {
      if (!batch.isActive()) break;
      const folding = foldRecord(this.ctx, r, checkState, touched);
      const f = folding instanceof Promise ? await folding : folding;
      if (f.kind === 'decided' && f.state !== undefined) this.encoded.set(f.key, { entry: this.task.get(f.key)!, value: f.state });
      report.add(r, f);
      // Decisions and dead letters; none for records rebuilt after a reset (published the first time).
      if (r.offset >= this.emitFrom) {
        if (f.kind === 'dead') outputs.push(deadLetter(this.topics.deadLetter, r, f.reason, f.error));
        else if (f.kind === 'decided') for (const o of f.outputs) outputs.push(o);
      }
      last = r;
    }
    return { report, outputs, touched, last };
  }

  /** The changed keys' changelog records; `unwritable` when some key's entry cannot be sent. */
  private changelogRecords(partition: number): { records: OutRecord[]; unwritable: boolean } {
    const records: OutRecord[] = [];
    let unwritable = false;
    for (const [key, entry] of this.task.drainDirty()) {
      const value = entry === null ? null : this.valueOf(key, entry);
      if (value === undefined) unwritable = true;
      else records.push({ topic: this.changelogTopic, partition, key, value });
    }
    this.encoded.clear();
    return { records, unwritable };
  }

  private valueOf(key: string, entry: StoreEntry): Buffer | undefined {
    const known = this.encoded.get(key);
    if (known?.entry === entry) return known.value;
    try {
      return changelogValue(this.ctx, key, entry);
    } catch {
      return undefined; // the careful pass finds the record and says why
    }
  }
}
