import { describe, expect, it } from 'vitest';
import { initialRunState } from '../../processors/toolLoop/state.js';
import { decisionCodec, toolLoopStateCodec, type ValueCodec } from '../../schemas/codecs.js';
import type { StoreEntry } from '../task.js';
import { FramedWriter } from './framedWriter.js';

/** What SchemaCatalog.encode gives for a subject registered as `id`. */
function catalogEncode<T>(id: number, codec: ValueCodec<T>, value: T): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(id, 1);
  return Buffer.concat([header, codec.type.toBuffer(codec.toAvro(value))]);
}

const decision = (i: number, reason = `repeated call ${i}`) =>
  ({
    type: 'tool_decision',
    id: `d${i}`,
    key: `run-${i % 7}`,
    ts: 1_700_000_000_000 + i,
    sessionKey: `s${i % 7}`,
    runId: `run-${i % 7}`,
    toolCallId: `c${i}`,
    toolName: 'read',
    decision: i % 3 === 0 ? 'block' : 'allow',
    message: reason,
    detector: 'genericRepeat',
    source: { topic: 'in', partition: i % 6, offset: i },
  }) as unknown as Record<string, unknown>;

describe('FramedWriter', () => {
  it('writes the bytes SchemaCatalog.encode gives, value after value across slabs', () => {
    const w = new FramedWriter();
    w.useSchema(42);
    const values = Array.from({ length: 3_000 }, (_, i) => decision(i));
    const written = values.map((v) => w.write(decisionCodec as ValueCodec<Record<string, unknown>>, v));
    // Earlier values are views that later writes must not overwrite.
    values.forEach((v, i) => expect(written[i]).toEqual(catalogEncode(42, decisionCodec as ValueCodec<Record<string, unknown>>, v)));
    expect(new Set(written.map((b) => b.buffer)).size).toBeGreaterThan(1);
  });

  it('gives a value larger than a slab a slab of its own', () => {
    const w = new FramedWriter();
    w.useSchema(7);
    const small = w.write(decisionCodec as ValueCodec<Record<string, unknown>>, decision(1));
    const huge = decision(2, 'x'.repeat(200_000));
    const big = w.write(decisionCodec as ValueCodec<Record<string, unknown>>, huge);
    expect(big).toEqual(catalogEncode(7, decisionCodec as ValueCodec<Record<string, unknown>>, huge));
    expect(small).toEqual(catalogEncode(7, decisionCodec as ValueCodec<Record<string, unknown>>, decision(1)));
  });

  it('frames with the schema id last set', () => {
    const w = new FramedWriter();
    const entry = { offset: 3, state: initialRunState } as unknown as StoreEntry;
    w.useSchema(1);
    const before = w.write(toolLoopStateCodec as ValueCodec<StoreEntry>, entry);
    w.useSchema(258);
    const after = w.write(toolLoopStateCodec as ValueCodec<StoreEntry>, entry);
    expect(before.readUInt32BE(1)).toBe(1);
    expect(after.readUInt32BE(1)).toBe(258);
    expect(after.subarray(5)).toEqual(before.subarray(5));
  });

  it('refuses to write before it knows the schema id', () => {
    expect(() => new FramedWriter().write(decisionCodec as ValueCodec<Record<string, unknown>>, decision(1))).toThrow(/useSchema/);
  });
});
