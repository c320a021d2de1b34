// The README's step-by-step Kafka walkthrough, pasted as it stands into a shell: against the
// test run's broker instead of the `npm run stack:up` it starts with, with the built CLI for
// `npx loopguard`, and topics of its own.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import JSON5 from 'json5';
import { afterAll, describe, expect, it } from 'vitest';
import { infraEnv, lgOk } from './helpers/harness.js';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const cwd = mkdtempSync(join(tmpdir(), 'loopguard-walkthrough-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** The indented code blocks of the README's "Run it on Kafka" section. */
function walkthroughBlocks(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.split('\n## ').find((s) => s.startsWith('Run it on Kafka'))!;
  return section
    .split(/\n\n/)
    .filter((p) => p.split('\n').every((l) => l.startsWith('    ')))
    .map((p) =>
      p
        .split('\n')
        .map((l) => l.slice(4))
        .join('\n'),
    );
}

/** Runs a script with bash in `cwd`; resolves with its stdout, rejects with everything on failure. */
function bash(script: string, cwd: string, env: Record<string, string | undefined>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`walkthrough exited ${code}\n--- stdout\n${out}\n--- stderr\n${err}`))));
  });
}

describe('the README walkthrough', () => {
  it("prints the demo traffic's decisions when pasted as it is", async () => {
    const [stack, steps] = walkthroughBlocks();
    // The first block only starts a stack and exports its address: the test run's broker stands in.
    expect(stack).toMatch(/^npm run stack:up .*\nset -a && \. \.stack\/env && set \+a .*$/);
    expect(steps).toContain('npx loopguard tail');

    const name = `it-walkthrough-${Date.now().toString(36)}`;
    const starter = JSON5.parse(readFileSync(join(ROOT, 'examples/config/starter.json5'), 'utf8')) as { loopguard: Record<string, unknown> };
    const config = {
      ...starter,
      loopguard: {
        ...starter.loopguard,
        topics: {
          toolEvents: `${name}.tool-events`,
          channelEvents: `${name}.channel-events`,
          verdicts: `${name}.verdicts`,
          deadLetter: `${name}.dead-letter`,
          changelogPrefix: `${name}.`,
          partitions: 3,
        },
        consumer: { groupId: `${name}-group`, sessionTimeoutMs: 8000 },
        http: { host: '127.0.0.1', port: 0 },
      },
    };
    mkdirSync(join(cwd, 'examples/config'), { recursive: true });
    writeFileSync(join(cwd, 'examples/config/starter.json5'), JSON.stringify(config));

    const script = steps!.replaceAll('npx loopguard', `node '${CLI}'`);
    const out = await bash(script, cwd, { ...process.env, LOOPGUARD_CONFIG: undefined, ...infraEnv(), LOG_LEVEL: 'warn' });

    const expected = (await lgOk(['replay', '--config', join(cwd, 'examples/config/starter.json5'), join(cwd, 'events.jsonl')])).split('\n').filter((l) => l.startsWith('{"type"'));
    const tailed = out.split('\n').filter((l) => /^\d{4}-\d\d-\d\dT\S+Z (?:WOULD )?(ALLOW|WARN|BLOCK|ABORT RUN|DELIVER|SUPPRESS) /.test(l));
    expect(expected.length).toBeGreaterThan(100);
    expect(tailed).toHaveLength(expected.length);
    expect(out).toMatch(/BLOCK +run=run-stuck-reader read generic_repeat count=20/);
    expect(out).toMatch(/SUPPRESS slack C0ALERTS B0DEPLOY ↔ B0TRIAGE pair_budget/);
    expect(out).toMatch(/ABORT RUN run=run-compaction exec compaction_loop_persisted/);
    expect(out).toMatch(/WOULD BLOCK run=run-canary-reader read generic_repeat count=20 .*\[shadow: obeyed as allow\]/);
  });
});
