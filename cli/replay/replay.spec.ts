// Parallel replay gives byte for byte what serial replay gives: the built CLI on the standard
// traffic (bench/gen-stream.mjs), raw and pre-hashed, with 0, 1 and 2 parse workers; and when
// hostile input fills a worker's capped heap, and on lines too long for a worker.
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

  // Calls whose outcomes never come stay in the hashing memo (by canonical text length, 1 MB):
  // arguments of 21,000 empty objects are 64 KB of text and ~0.6 MB of heap each.
  it('parses on the folding thread when hostile arguments fill a worker, with the same output', () => {
    const call = (runId: string, args: unknown, toolCallId?: string) => JSON.stringify({ type: 'tool_call', ts: 1700000000000, runId, toolName: 'read', toolCallId, args });
    const lines = [
      ...Array.from({ length: 1500 }, (_, i) => call(`r${i % 50}`, { p: 'x'.repeat(900) })),
      ...Array.from({ length: 40 }, (_, i) =>
        call(
          `h${i}`,
          Array.from({ length: 21000 }, () => ({})),
          `tc${i}`,
        ),
      ),
      // Lines over 256 KB (MAX_WORKER_CHUNK_BYTES): never given to a worker.
      ...Array.from({ length: 3 }, (_, i) => call(`long${i}`, { p: 'z'.repeat(300_000) })),
      ...Array.from({ length: 500 }, (_, i) => call(`r${i % 50}`, { p: 'y'.repeat(900) })),
    ];
    const file = join(dir, 'hostile.jsonl');
    writeFileSync(file, lines.join('\n') + '\n');
    const serial = replay(file, 0);
    expect(serial.status).toBe(0);
    expect(serial.stdout.split('\n').filter(Boolean).length).toBe(lines.length);
    for (const workers of [1, 2]) {
      const parallel = replay(file, workers);
      expect(parallel.status).toBe(0);
      expect(parallel.stderr).toMatch(/a parse worker ran out of memory; parsing on this thread from here/);
      expect(parallel.stdout === serial.stdout, `--workers ${workers}`).toBe(true);
    }
  });
});
