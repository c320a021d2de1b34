// `loopguard replay` (the built CLI) reads a framework's plain JSON results as SPEC §2.2 rule 2
// (Revision 4) says, whether the runner sent them raw or hashed them with the SDK: a poll whose
// JSON moves on is never blocked, the same JSON is, at the same call either way.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashArgs, hashOutcome } from '../../sdk/index.js';

const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'loopguard-replay-results-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const args = { id: 'd1' };
/** A run polling a deployment 8 times: the call, then its result, raw or as the SDK hashes it. */
function polls(runId: string, progress: (n: number) => number, hashed: boolean): object[] {
  const events: object[] = [];
  for (let n = 1; n <= 8; n++) {
    const ts = 1_700_000_000_000 + 2 * n;
    const result = { state: 'rolling', progress: progress(n) };
    const call = hashed ? { argsHash: hashArgs('deploymentStatus', args) } : { args };
    events.push({ type: 'tool_call', ts, runId, toolName: 'deploymentStatus', toolCallId: `c${n}`, ...call });
    const outcome = hashed ? hashOutcome({ toolName: 'deploymentStatus', args, result }) : { result };
    events.push({ type: 'tool_outcome', ts: ts + 1, runId, toolName: 'deploymentStatus', toolCallId: `c${n}`, ...call, ...outcome });
  }
  return events;
}

describe('replay of plain JSON results', () => {
  it('never blocks a poll whose JSON moves on and blocks the 6th of one that does not, raw or hashed by the SDK', () => {
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ tools: { loopDetection: { enabled: true, warningThreshold: 3, criticalThreshold: 5 } } }));
    const file = join(dir, 'polls.jsonl');
    const runs = [
      polls('moving-raw', (n) => 10 * n, false),
      polls('moving-hashed', (n) => 10 * n, true),
      polls('stuck-raw', () => 40, false),
      polls('stuck-hashed', () => 40, true),
    ];
    writeFileSync(
      file,
      runs
        .flat()
        .map((e) => JSON.stringify(e))
        .join('\n') + '\n',
    );
    const out = spawnSync('node', [CLI, 'replay', '--config', config, file], { encoding: 'utf8' });
    expect(out.stderr).not.toMatch(/loopguard: /);
    const decisions = out.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { runId: string; decision: string });
    const of = (runId: string) => decisions.filter((d) => d.runId === runId).map((d) => d.decision);
    const moving = ['allow', 'allow', 'allow', 'warn', 'warn', 'warn', 'warn', 'warn'];
    const stuck = ['allow', 'allow', 'allow', 'warn', 'warn', 'block', 'block', 'block'];
    expect([of('moving-raw'), of('moving-hashed'), of('stuck-raw'), of('stuck-hashed')]).toEqual([moving, moving, stuck, stuck]);
  });
});
