// A tool_outcome's `error` may be any JSON value but null (docs/behaviour.md §1): a number or
// boolean is hashed by its decimal text (§2.2 rule 1), anything else that is not a string or an
// object by its canonical JSON; every such value crosses Avro unchanged and `replay` takes it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { hashValue } from '../processors/toolLoop/hashing.js';
import { parseToolEvent, type ToolOutcome } from '../processors/toolLoop/events.js';
import { toolEventCodec } from './codecs.js';

const outcome = (error: unknown) => ({ type: 'tool_outcome', ts: 1, runId: 'r', toolName: 'f', args: {}, error });
const hashOf = (error: unknown): string | undefined => {
  const p = parseToolEvent(outcome(error));
  if (!p.ok) throw new Error(p.reason);
  return (p.value as ToolOutcome).outcome?.resultHash;
};
const roundTrip = (v: unknown) => toolEventCodec.fromAvro(toolEventCodec.type.fromBuffer(toolEventCodec.type.toBuffer(toolEventCodec.toAvro(v as Record<string, unknown>))));

describe('error values', () => {
  it.each([
    [42, '42'],
    [-0.5, '-0.5'],
    [1e21, '1e+21'],
    [true, 'true'],
    [false, 'false'],
  ])('hashes %j by its decimal text, as the string %j', (error, text) => {
    expect(hashOf(error)).toBe(`error:${hashValue(text)}`);
    expect(hashOf(error)).toBe(hashOf(text));
  });
  it('hashes an array by its canonical JSON', () => {
    expect(hashOf([2, { b: 1, a: 'x' }])).toBe(`error:${hashValue('[2,{"a":"x","b":1}]')}`);
  });
  it('takes null as no error, and refuses what JSON cannot hold, naming the field', () => {
    expect(hashOf(null)).toBeUndefined();
    for (const bad of [NaN, Infinity, [1, undefined], [() => 1]]) {
      const p = parseToolEvent(outcome(bad));
      expect(p.ok).toBe(false);
      expect(!p.ok && p.reason).toMatch(/^error: must be a JSON value/);
    }
  });
  it('carries any error value from the JSON form to Avro and back', () => {
    const error = fc.oneof(
      fc.string(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.array(fc.jsonValue()),
      fc.record({ name: fc.string(), message: fc.string(), status: fc.integer(), code: fc.string() }, { requiredKeys: [] }),
    );
    fc.assert(
      fc.property(error, (e) => {
        const v = outcome(e);
        // JSON text has no -0: an error's value is what JSON text gives back.
        expect(roundTrip(v)).toEqual({ ...v, error: JSON.parse(JSON.stringify(e)) as unknown });
      }),
    );
  });
});

describe('replay with error values', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-errors-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it('decides outcomes whose error is a number, a boolean or an array like the same error as text', () => {
    const lines = (errors: readonly unknown[]) =>
      errors.flatMap((error, i) => [
        { type: 'tool_call', ts: 1000 + 2 * i, runId: 'r', toolName: 'f', args: {}, toolCallId: `c${i}` },
        { type: 'tool_outcome', ts: 1001 + 2 * i, runId: 'r', toolName: 'f', args: {}, toolCallId: `c${i}`, error },
      ]);
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ tools: { loopDetection: { enabled: true, warningThreshold: 2, criticalThreshold: 3 } } }));
    const run = (errors: readonly unknown[]) => {
      const file = join(dir, `${errors.length}-${typeof errors[0]}.jsonl`);
      writeFileSync(
        file,
        `${lines([...errors, ...errors])
          .map((l) => JSON.stringify(l))
          .join('\n')}\n`,
      );
      const r = spawnSync('node', [join(import.meta.dirname, '..', 'dist', 'cli', 'main.js'), 'replay', '--config', config, file], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { decision: string; detector: string | null }).decision);
    };
    const asNumbers = run([503, 503]);
    expect(asNumbers).toEqual(['allow', 'allow', 'warn', 'block']);
    expect(run(['503', '503'])).toEqual(asNumbers);
    expect(run([true, true])).toEqual(asNumbers);
    expect(
      run([
        [1, 'x'],
        [1, 'x'],
      ]),
    ).toEqual(asNumbers);
  });
});
