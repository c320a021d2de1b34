// `npm install -g .` in a fresh clone, as the README tells a user to put `loopguard` on the
// PATH: npm runs the package's `prepare` (the build) before it installs anything, and installs
// no dev dependencies for a global install, so the build did not find `tsc` (issue 42).
// Packages come from npm's cache where they are (the test run's own `npm ci` put them there).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'loopguard-global-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm install -g . in a fresh clone', () => {
  it('builds and puts a working `loopguard` on the PATH', () => {
    const clone = join(dir, 'clone');
    const prefix = join(dir, 'prefix');
    // The commit checked out (a fresh clone has no dist/ and no node_modules/).
    execFileSync('git', ['clone', '--quiet', ROOT, clone]);
    // --omit=optional: librdkafka, which builds from source for minutes, is not what is tested.
    const install = spawnSync('npm', ['install', '-g', '.', '--prefix', prefix, '--omit=optional', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: clone,
      encoding: 'utf8',
    });
    expect(install.status, `${install.stdout}\n${install.stderr}`.slice(-3000)).toBe(0);
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(execFileSync(join(prefix, 'bin', 'loopguard'), ['--version'], { encoding: 'utf8' }).trim()).toBe(version);
    expect(execFileSync(join(prefix, 'bin', 'loopguard'), ['mcp-proxy', '--help'], { encoding: 'utf8' })).toContain('--new-run-after');
  }, 600_000);
});
