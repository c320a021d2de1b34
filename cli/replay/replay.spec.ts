// Parallel replay gives byte for byte what serial replay gives: the built CLI on the standard
// traffic (bench/gen-stream.mjs), raw and pre-hashed, with 0, 1 and 2 parse workers.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'loopguard-replay-'));

function stream(hashed: boolean): string {
  const r = spawnSync(
    'node',
    [join(ROOT, 'bench', 'gen-stream.mjs'), '--runs', '120', '--calls', '40', '--args-bytes', '200', '--result-bytes', '400', ...(hashed ? ['--hashed'] : [])],
    { encoding: 'utf8', maxBuffer: 1 << 28 },
  );
  const file = join(dir, hashed ? 'hashed.jsonl' : 'raw.jsonl');
  writeFileSync(file, r.stdout);
  return file;
}

const replay = (file: string, workers: number) =>
  spawnSync('node', [CLI, 'replay', '--workers', String(workers), '--config', join(ROOT, 'examples/config/tool-loop-agent.json5'), file], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: { ...process.env, LOG_LEVEL: 'debug' },
  });

describe('replay with parse workers', () => {
  it.each([
    ['raw', false],
    ['pre-hashed', true],
  ])('gives the serial output byte for byte on the standard %s stream', (_name, hashed) => {
    const file = stream(hashed);
    const serial = replay(file, 0);
    expect(serial.status).toBe(0);
    expect(serial.stdout.split('\n').filter(Boolean).length).toBe(120 * 40);
    expect(serial.stdout).toMatch(/"decision":"block"/);
    for (const workers of [1, 2]) {
      const parallel = replay(file, workers);
      expect(parallel.status).toBe(0);
      // Workers start after the first 1 MB: the stream is longer, so they parsed the rest.
      expect(parallel.stderr).toMatch(/parse workers started/);
      expect(parallel.stdout === serial.stdout, `--workers ${workers}`).toBe(true);
    }
  });
});
