// bench/gen-stream.mjs as the benchmarks run it: a child process writing JSON lines. Its bytes
// must stay those of the stream the recorded numbers were measured on: the SHA-256 and length of
// the reference generator's output for each option set are kept here (computed once with
// `node gen-stream.mjs <options> | sha256sum`), so every clone checks them.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFrom } from '../topology/config.js';
import { buildTopology } from '../topology/build.js';
import { InMemoryDriver } from '../topology/testing/driver.js';
import { route } from '../topology/topology.js';

const repoRoot = join(import.meta.dirname, '..');
const OURS = join(repoRoot, 'bench', 'gen-stream.mjs');

const run = (script: string, args: string[]) => spawnSync('node', [script, ...args], { maxBuffer: 1 << 28 });
const linesOf = (args: string[]) => run(OURS, args).stdout.toString('utf8').split('\n').slice(0, -1);

describe('bench/gen-stream.mjs', () => {
  // options → [sha256 of stdout, bytes]: the reference generator's output.
  const reference: Array<[string, string, number]> = [
    ['--runs 5 --calls 14', '4b66a0937960f1cabdde4c9ceeb3d7c316f5ee08b5c26771f15c994339f0fb4f', 379_410],
    ['--runs 9 --calls 12 --hashed', 'c184aef1663762838d70064324ff6f9c70313d84c6d14329cedf62aca055c598', 55_632],
    ['--runs 4 --calls 11 --args-bytes 300 --result-bytes 70', 'fcbfa8a23a8263a6a13657a52fffa9e86fa88d2305b04d9e04291fa884dfee13', 40_055],
    ['--runs 12 --calls 13 --hashed --args-bytes 61 --result-bytes 0', '0002d4a22a6e6838fcbc895aa912af0a61d1938e6a650b229b8305898b55d566', 80_488],
    ['--runs 1001 --calls 2', 'bb91c95dbf9b722037df1134192d237a09467c396ae8db7618c2032415c76915', 12_767_092],
  ];
  it.each(reference)('writes the reference stream byte for byte: %s', (options, sha256, bytes) => {
    const ours = run(OURS, options.split(' '));
    expect(ours.status).toBe(0);
    expect(ours.stdout.length).toBe(bytes);
    expect(createHash('sha256').update(ours.stdout).digest('hex')).toBe(sha256);
  });

  it('writes a call and an outcome per call of every run, round-robin, one millisecond apart', () => {
    const events = linesOf(['--runs', '3', '--calls', '4']).map((l) => JSON.parse(l) as { type: string; ts: number; runId: string; toolCallId: string });
    expect(events).toHaveLength(2 * 3 * 4);
    expect(events.slice(0, 6).map((e) => `${e.type}:${e.runId}`)).toEqual([
      'tool_call:run-0',
      'tool_outcome:run-0',
      'tool_call:run-1',
      'tool_outcome:run-1',
      'tool_call:run-2',
      'tool_outcome:run-2',
    ]);
    expect(events[6]?.toolCallId).toBe('r0-c1');
    expect(events.every((e, i) => e.ts === 1_700_000_000_000 + i)).toBe(true);
  });

  it('writes only events loopguard accepts, raw and hashed', () => {
    const topology = buildTopology(configFrom({}));
    for (const hashed of [[], ['--hashed']]) {
      const rejected = linesOf(['--runs', '8', '--calls', '12', ...hashed])
        .map((l) => route(topology, JSON.parse(l)))
        .filter((r) => !r.ok);
      expect(rejected).toEqual([]);
    }
  });

  it('has every 4th run stuck in a loop that detection blocks, and no other run blocked', () => {
    const driver = new InMemoryDriver(buildTopology(configFrom({ tools: { loopDetection: { enabled: true } } })));
    const blocked = new Set<string>();
    for (const line of linesOf(['--runs', '8', '--calls', '40', '--args-bytes', '80', '--result-bytes', '40'])) {
      const r = driver.pipe(JSON.parse(line));
      if (!r.ok) throw new Error(r.reason);
      for (const d of r.decisions) if (d.type === 'tool_decision' && d.decision === 'block') blocked.add(d.key);
    }
    expect([...blocked].sort()).toEqual(['run-0', 'run-4']);
  });

  it('refuses a bad option with one line and exit code 2', () => {
    const r = run(OURS, ['--args-bytes', '10']);
    expect(r.status).toBe(2);
    expect(r.stdout.length).toBe(0);
    expect(r.stderr.toString('utf8')).toBe('loopguard: gen-stream: --args-bytes must be a whole number of at least 60 (got "10") (see --help)\n');
  });
});
