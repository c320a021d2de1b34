// The built executable (dist/cli/main.js, from cli/bin.ts) and its code cache: a cache that is
// missing or unreadable costs a compile, never a wrong answer, and a good one is used as it is.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const CLI = resolve(import.meta.dirname, '../dist/cli/main.js');
const CONFIG = resolve(import.meta.dirname, '../examples/config/tool-loop-agent.json5');
const dir = mkdtempSync(join(tmpdir(), 'loopguard-bin-'));
const events = join(dir, 'events.jsonl');
writeFileSync(
  events,
  [1, 2, 3]
    .map((i) =>
      JSON.stringify({ type: 'tool_call', ts: 1_700_000_000_000 + i, sessionKey: 's', runId: 'r', agentId: 'a', toolName: 'read', toolCallId: `c${i}`, args: { path: '/a' } }),
    )
    .join('\n') + '\n',
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const replay = (cache: string) => {
  const r = spawnSync(process.execPath, [CLI, 'replay', '--config', CONFIG, events], { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'warn', LOOPGUARD_CODE_CACHE: cache } });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
};

describe('the loopguard executable', () => {
  it('writes its code cache when there is none, and then uses it without writing it again', () => {
    const cache = join(dir, 'fresh.cache');
    const first = replay(cache);
    expect(first.split('\n').filter(Boolean)).toHaveLength(3);
    expect(existsSync(cache)).toBe(true);
    const written = readFileSync(cache);
    const { mtimeMs } = statSync(cache);
    // Replay changes V8 flags while it runs; a cache written under them would be refused by
    // the next start and written again every time.
    expect(replay(cache)).toBe(first);
    expect(statSync(cache).mtimeMs).toBe(mtimeMs);
    expect(readFileSync(cache).equals(written)).toBe(true);
  });

  it('gives the same output from a corrupt cache, and replaces it', () => {
    const good = replay(join(dir, 'reference.cache'));
    const cache = join(dir, 'corrupt.cache');
    writeFileSync(cache, Buffer.alloc(4096, 0xab));
    expect(replay(cache)).toBe(good);
    expect(readFileSync(cache).equals(Buffer.alloc(4096, 0xab))).toBe(false);
  });

  it('runs by itself, as npx and a shell run it (its shebang; executable from the build on)', () => {
    const r = spawnSync(CLI, ['--version'], { encoding: 'utf8' });
    expect(r.error).toBeUndefined();
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(resolve(import.meta.dirname, '../package.json'), 'utf8')).version);
  });

  it('runs when the cache cannot be written', () => {
    const good = replay(join(dir, 'reference2.cache'));
    expect(replay(join(dir, 'no-such-dir', 'x.cache'))).toBe(good);
    expect(existsSync(join(dir, 'no-such-dir'))).toBe(false);
  });
});
