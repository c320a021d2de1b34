// Child processes timed from spawn to exit, with their peak RSS from /usr/bin/time (a parent
// cannot read a child's max RSS from Node itself), and the statistics the table reports.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const TIME = '/usr/bin/time';
export const canMeasureRss = existsSync(TIME);

/**
 * Runs `node ...args` with stdout to /dev/null; resolves { ms, rssMB, stdout } or rejects with
 * the child's stderr. `rss: true` wraps it in /usr/bin/time (a few ms more, on both sides of a
 * comparison that uses it).
 */
export function timedNode(args, { rss = false, keepStdout = false, env = process.env } = {}) {
  const dir = rss && canMeasureRss ? mkdtempSync(join(tmpdir(), 'lg-bench-time-')) : undefined;
  const [cmd, argv] = dir ? [TIME, ['-f', '%M', '-o', join(dir, 'rss'), process.execPath, ...args]] : [process.execPath, args];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd, argv, { stdio: ['ignore', keepStdout ? 'pipe' : 'ignore', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      const ms = performance.now() - started;
      const rssMB = dir ? Number(readFileSync(join(dir, 'rss'), 'utf8').trim().split('\n').at(-1)) / 1024 : null;
      if (dir) rmSync(dir, { recursive: true, force: true });
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited with ${code ?? signal}: ${stderr.trim().split('\n').slice(-5).join('\n')}`));
      else resolve({ ms, rssMB, stdout });
    });
  });
}

export function median(xs) {
  const s = xs.filter((x) => x !== null && x !== undefined).sort((a, b) => a - b);
  if (s.length === 0) return null;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Each round runs `steps` in a rotated order, so no step always runs first or last. */
export async function interleaved(rounds, steps, onSample = () => {}) {
  const samples = steps.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < steps.length; k++) {
      const i = (k + r) % steps.length;
      const s = await steps[i].run();
      samples[i].push(s);
      onSample(steps[i].name, r, s);
    }
  }
  return samples;
}
