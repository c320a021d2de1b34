// Parallel replay gives byte for byte what serial replay gives: the built CLI on the standard
// traffic (bench/gen-stream.mjs), raw and pre-hashed, with 0, 1 and 2 parse workers; and with
// lines too long for a worker, and a worker that runs out of memory.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'loopguard-replay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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

const replay = (file: string, workers: number, extra: readonly string[] = []) =>
  spawnSync('node', [CLI, 'replay', '--workers', String(workers), ...extra, '--config', join(ROOT, 'examples/config/tool-loop-agent.json5'), file], {
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

  it('gives the serial output for channel events, outcomes with errors and invalid lines mixed in (--skip-invalid)', () => {
    const base = (i: number) => `"ts":${1700000000000 + i},"runId":"r${i % 37}"`;
    const chat = (i: number) => `"ts":${1700000000000 + i},"channel":"slack","accountId":"acc","conversationId":"c${i % 5}"`;
    // Every run repeats one call with one result: loops are found, with warnings and blocks.
    const same = 'y'.repeat(200);
    const lines = Array.from({ length: 12000 }, (_, i) => {
      const pad = 'x'.repeat(i % 300);
      switch (i % 8) {
        case 0:
          return `{"type":"tool_call",${base(i)},"toolName":"read","toolCallId":"c${i}","args":{"path":"/same","pad":"${same}"}}`;
        case 1:
          return `{"type":"tool_outcome",${base(i)},"toolName":"read","toolCallId":"c${i - 1}","args":{"path":"/same","pad":"${same}"},"result":{"ok":1}}`;
        case 2:
          return `{"type":"tool_outcome",${base(i)},"toolName":"nope","argsHash":"nope:1","error":{"message":"Unknown tool: nope"},"eventId":"e${i % 50}"}`;
        case 3:
          return `{"type":"bot_message",${chat(i)},"senderId":"b${i % 2}","receiverId":"b${(i + 1) % 2}","eventId":"m${i % 400}","hopLimit":${i % 4}}`;
        case 4:
          return `{"type":"human_message",${chat(i)},"senderId":"p1"}`;
        case 5:
          return i % 3 === 0 ? '{not json' : `{"type":"tool_call",${base(i)},"toolName":"read"}`;
        case 6:
          return `{"type":"tool_call",${base(i)},"toolName":"process","args":{"action":"poll","pad":"${pad}"},"agentId":"a${i % 2}"}`;
        default:
          return i % 5 === 0 ? `{"type":"compaction",${base(i)}}` : '';
      }
    });
    const file = join(dir, 'mixed.jsonl');
    writeFileSync(file, lines.join('\n') + '\n');
    const serial = replay(file, 0, ['--skip-invalid']);
    expect(serial.status).toBe(0);
    expect(serial.stdout).toMatch(/"decision":"suppress"|"decision":"deliver"/);
    expect(serial.stdout).toMatch(/"decision":"(warn|block)"/);
    for (const workers of [1, 2]) {
      const parallel = replay(file, workers, ['--skip-invalid']);
      expect(parallel.status).toBe(0);
      expect(parallel.stderr).toMatch(/parse workers started/);
      expect(parallel.stdout === serial.stdout, `--workers ${workers}`).toBe(true);
    }
  });

  it('parses lines over 256 KB, and the lines of a worker that runs out of memory, on the folding thread, with the same output', () => {
    const call = (runId: string, args: unknown) => JSON.stringify({ type: 'tool_call', ts: 1700000000000, runId, toolName: 'read', args });
    const lines = [
      ...Array.from({ length: 1500 }, (_, i) => call(`r${i % 50}`, { p: 'x'.repeat(900) })),
      // Over MAX_WORKER_CHUNK_BYTES: never given to a worker.
      ...Array.from({ length: 3 }, (_, i) => call(`long${i}`, { p: 'z'.repeat(300_000) })),
      ...Array.from({ length: 1500 }, (_, i) => call(`r${i % 50}`, { p: 'y'.repeat(900) })),
    ];
    const file = join(dir, 'long-lines.jsonl');
    writeFileSync(file, lines.join('\n') + '\n');
    const serial = replay(file, 0);
    expect(serial.status).toBe(0);
    expect(serial.stdout.split('\n').filter(Boolean).length).toBe(lines.length);
    for (const workers of [1, 2]) {
      const parallel = replay(file, workers);
      expect(parallel.status).toBe(0);
      expect(parallel.stderr).toMatch(/parse workers started/);
      expect(parallel.stderr).not.toMatch(/ran out of memory/);
      expect(parallel.stdout === serial.stdout, `--workers ${workers}`).toBe(true);
    }
    // 120 KB lines of 40,000 empty objects (about 2 MB each once parsed) outgrow the smallest
    // worker heap accepted on Node 20, 22 and 24 alike: a worker starts, then runs out of memory.
    const crowded = Array.from({ length: 40_000 }, () => ({}));
    const starvedFile = join(dir, 'crowded.jsonl');
    writeFileSync(starvedFile, [...lines, ...Array.from({ length: 20 }, (_, i) => call(`crowded${i}`, crowded)), ...lines.slice(0, 1500)].join('\n') + '\n');
    const starvedSerial = replay(starvedFile, 0);
    expect(starvedSerial.status).toBe(0);
    const starved = replay(starvedFile, 2, ['--worker-heap', '4']);
    expect(starved.status).toBe(0);
    expect(starved.stderr).toMatch(/a parse worker ran out of memory; parsing on this thread from here/);
    expect(starved.stdout === starvedSerial.stdout, '--worker-heap 4').toBe(true);
  });

  it('refuses a --worker-heap too small for a worker to start, naming the option', () => {
    const r = replay(join(dir, 'long-lines.jsonl'), 1, ['--worker-heap', '3']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/--worker-heap must be at least 4, got 3/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stdout).toBe('');
  });
});
