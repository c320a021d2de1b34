// The `loopguard` command as a user runs it: the built CLI in a child process.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'loopguard-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const lg = (args: string[], input?: string, env: Record<string, string> = {}) =>
  spawnSync('node', [CLI, ...args], { input, encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'warn', ...env } });
const jsonLines = (s: string) =>
  s
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const call = (i: number, extra = {}) =>
  JSON.stringify({ type: 'tool_call', ts: 1000 + i, runId: 'r1', sessionKey: 's', toolName: 'read', args: { path: '/a' }, toolCallId: `c${i}`, ...extra });
const outcome = (i: number) =>
  JSON.stringify({ type: 'tool_outcome', ts: 1000 + i, runId: 'r1', sessionKey: 's', toolName: 'read', args: { path: '/a' }, toolCallId: `c${i}`, result: 'same' });
const bot = (i: number) =>
  JSON.stringify({
    type: 'bot_message',
    ts: 5000 + i,
    channel: 'slack',
    accountId: 'T',
    conversationId: 'C',
    senderId: i % 2 ? 'A' : 'B',
    receiverId: i % 2 ? 'B' : 'A',
    eventId: `m${i}`,
  });

describe('loopguard replay', () => {
  const lines: string[] = [];
  for (let i = 0; i < 12; i++) lines.push(call(i), outcome(i), bot(i));
  const events = file('events.jsonl', lines.join('\n') + '\n\n');
  const config = file('config.json5', '{ tools: { loopDetection: { enabled: true } } }');

  it('writes one decision per request, in input order, for a mixed tool and bot stream', () => {
    const r = lg(['replay', '--config', config, events]);
    expect(r.status).toBe(0);
    const ds = jsonLines(r.stdout);
    expect(ds.map((d) => d.type)).toEqual(Array.from({ length: 12 }, () => ['tool_decision', 'bot_decision']).flat());
    expect(ds[20]).toMatchObject({ type: 'tool_decision', decision: 'warn', detector: 'generic_repeat', count: 10, toolCallId: 'c10' });
    expect(new Set(ds.map((d) => d.id)).size).toBe(24);
    expect(ds[0]?.source).toMatchObject({ topic: 'loopguard.tool-events', offset: 0 });
  });
  it('reads stdin and gives the same answer as the file', () => {
    expect(lg(['replay', '--config', config, '-'], lines.join('\n')).stdout).toBe(lg(['replay', '--config', config, events]).stdout);
  });
  it('names the line of a malformed event and exits non-zero', () => {
    const bad = file('bad.jsonl', [call(0), '{"type":"tool_call","ts":"soon","runId":"r","toolName":"x","args":{}}', call(1)].join('\n'));
    const r = lg(['replay', bad]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/line 2: ts/);
    expect(jsonLines(r.stdout)).toHaveLength(1);
  });
  it('names lines that are not JSON, or miss required fields', () => {
    expect(lg(['replay', file('nojson.jsonl', `${call(0)}\n{oops\n`)]).stderr).toMatch(/line 2: not valid JSON/);
    expect(lg(['replay', file('nokey.jsonl', '{"type":"tool_call","ts":1,"toolName":"x","args":{}}\n')]).stderr).toMatch(/line 1: .*sessionKey or runId/);
    expect(lg(['replay', file('notype.jsonl', '{"type":"chat","ts":1}\n')]).stderr).toMatch(/line 1: type: unknown event type "chat"/);
  });
  it('continues past invalid lines with --skip-invalid', () => {
    const bad = file('bad2.jsonl', [call(0), '{"type":"bot_message","ts":1}', '[', call(1)].join('\n'));
    const r = lg(['replay', '--skip-invalid', bad]);
    expect(r.status).toBe(0);
    expect(jsonLines(r.stdout)).toHaveLength(2);
    expect(r.stderr).toContain('skipped invalid event');
  });
  it('refuses a bad config naming the key', () => {
    const r = lg(['replay', '--config', file('bad.json5', '{ tools: { loopDetection: { warningThreshold: "ten" } } }'), events]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('tools.loopDetection.warningThreshold');
  });
});

describe('loopguard demo', () => {
  it('tells the story of each bundled scenario', () => {
    const r = lg(['demo']);
    expect(r.status).toBe(0);
    for (const s of [
      'generic_repeat, count 20',
      'ping_pong, count 10',
      'ABORT RUN',
      'compaction_loop_persisted',
      'SUPPRESS        pair_budget',
      'calls 1–26         process                              ALLOW',
      'ABORT RUN       block_escalation, count 5',
      'WOULD BLOCK     generic_repeat, count 20',
      'SUPPRESS        slow_loop, cooldown until 11:40:00Z',
      'evidence: since 06:40:00Z, 61 messages from @triage:acme.org',
      'after msg 63       @alice:acme.org',
    ])
      expect(r.stdout).toContain(s);
  });
  it('prints its decisions as JSON lines with --json', () => {
    const ds = jsonLines(lg(['demo', '--json']).stdout);
    expect(ds.filter((d) => d.type === 'run_abort').map((d) => d.detector)).toEqual(['compaction_loop_persisted', 'block_escalation']);
    expect(ds.filter((d) => d.shadow === true).every((d) => d.key === 'run-canary-reader')).toBe(true);
    expect(ds.filter((d) => d.key === 'run-canary-reader' && d.decision === 'block')).toHaveLength(2);
    expect(ds.filter((d) => d.decision === 'suppress').length).toBeGreaterThan(0);
    expect(ds.filter((d) => d.conversationId === 'C0TEAM').every((d) => d.decision === 'deliver')).toBe(true);
  });
});

describe('user errors', () => {
  const STACK_FRAME = /^\s+at /m;
  /** One `loopguard:` line on stderr, no stack, the given exit code. */
  const expectOneLine = (r: { status: number | null; stderr: string }, status: number, pattern: RegExp) => {
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^loopguard: /);
    expect(r.stderr).toMatch(pattern);
    expect(r.stderr).not.toMatch(STACK_FRAME);
    expect(r.status).toBe(status);
  };
  const events = file('user-errors.jsonl', `${call(0)}\n`);

  it('names a missing input file', () => {
    expectOneLine(lg(['replay', join(dir, 'nonexistent.jsonl')]), 2, /cannot read .*nonexistent\.jsonl: ENOENT/);
  });
  it('refuses a directory as input', () => {
    expectOneLine(lg(['replay', dir]), 2, /cannot read .*: it is a directory/);
  });
  it('reads past a UTF-8 byte-order mark at the start of the input', () => {
    const r = lg(['replay', file('bom.jsonl', `\uFEFF${call(0)}\n${call(1)}\n`)]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(jsonLines(r.stdout).map((d) => d.toolCallId)).toEqual(['c0', 'c1']);
  });
  it('names both config keys when two topics collide', () => {
    const config = file('collide.json5', '{ loopguard: { topics: { toolEvents: "x", channelEvents: "x" } } }');
    expectOneLine(lg(['replay', '--config', config, events]), 1, /loopguard\.topics\.toolEvents and loopguard\.topics\.channelEvents are both "x"/);
  });
  it('names the changelog prefix when an output topic collides with a changelog', () => {
    const config = file('collide-changelog.json5', '{ loopguard: { topics: { deadLetter: "loopguard.tool-loop-runs-changelog" } } }');
    expectOneLine(lg(['replay', '--config', config, events]), 1, /loopguard\.topics\.deadLetter and loopguard\.topics\.changelogPrefix/);
  });
  it('names a bad environment variable', () => {
    expectOneLine(lg(['replay', events], undefined, { SCHEMA_REGISTRY_URL: 'notaurl' }), 1, /env\.SCHEMA_REGISTRY_URL: must be an http/);
    expectOneLine(lg(['replay', events], undefined, { KAFKA_BROKERS: '' }), 1, /env\.KAFKA_BROKERS: is set but empty/);
  });
  it('accepts LOG_LEVEL in any case', () => {
    const r = lg(['replay', events], undefined, { LOG_LEVEL: 'WARN' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
  it('refuses a --max-event-bytes that is not a positive integer, naming the option', () => {
    const r = lg(['run', '--max-event-bytes', 'abc']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('--max-event-bytes must be a positive integer, got abc');
    expect(r.stderr).not.toMatch(STACK_FRAME);
  });
  it('stops quietly when the reader of its output goes away (replay | head)', async () => {
    const many = file('many.jsonl', Array.from({ length: 20_000 }, (_, i) => call(i, { runId: `r${i}` })).join('\n'));
    const child = spawn('node', [CLI, 'replay', many], { env: { ...process.env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    // Like `head -1`: read the first chunk, then close the pipe while the CLI still has MBs to write.
    child.stdout.once('data', () => child.stdout.destroy());
    const status = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(stderr).toBe('');
    expect(status).toBe(0);
  });
  it('reports an output it cannot write to in one line', () => {
    const readOnly = openSync(events, 'r');
    try {
      const r = spawnSync('node', [CLI, 'replay', events], { stdio: ['ignore', readOnly, 'pipe'], encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'warn' } });
      expectOneLine(r, 1, /cannot write output: EBADF/);
    } finally {
      closeSync(readOnly);
    }
  });
});

// An unexpected error (not a LoopguardError): reading /proc/self/mem from offset 0 fails with EIO
// on Linux, the one platform where a portable way to make a read fail is at hand.
describe.runIf(process.platform === 'linux')('unexpected errors (Linux: /proc/self/mem fails to read)', () => {
  it('prints one loopguard: line and exits 1, without a stack', () => {
    const r = lg(['replay', '/proc/self/mem']);
    expect(r.stderr).toBe('loopguard: EIO: i/o error, read\n');
    expect(r.status).toBe(1);
  });
  it('adds the error itself when LOG_LEVEL is debug', () => {
    const r = lg(['replay', '/proc/self/mem'], undefined, { LOG_LEVEL: 'DEBUG' });
    expect(r.stderr.split('\n').slice(0, 2)).toEqual(['loopguard: EIO: i/o error, read', 'Error: EIO: i/o error, read']);
    expect(r.status).toBe(1);
  });
});

describe('loopguard demo --events', () => {
  it('prints the demo traffic, which replay with the starter config turns into the decisions demo --json shows', () => {
    const events = lg(['demo', '--events']);
    expect(events.status).toBe(0);
    const replayed = jsonLines(lg(['replay', '--config', join(import.meta.dirname, '..', 'examples/config/starter.json5'), '--partitions', '3', '-'], events.stdout).stdout);
    expect(replayed.map((d) => [d.type, d.decision])).toEqual(jsonLines(lg(['demo', '--json']).stdout).map((d) => [d.type, d.decision]));
  });
});

describe('command-line conventions', () => {
  it('prints the package version with --version', () => {
    const r = lg(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe((JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string }).version);
  });
  it.each([
    [[], 'start'],
    [['start'], '--demo'],
    [['console'], '--lookback'],
    [['demo'], '--events'],
    [['replay'], '--partitions'],
    [['run'], '--max-event-bytes'],
    [['topics'], 'create'],
    [['topics', 'create'], '--dry-run'],
    [['produce'], '--skip-invalid'],
    [['tail'], '--from-beginning'],
    [['reset'], '--to-earliest'],
  ])('has --help for %j', (command, mentions) => {
    const r = lg([...command, '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(mentions);
  });
  it('says in one line what to install when start needs Java and finds none', () => {
    const bin = mkdtempSync(join(dir, 'bin-'));
    symlinkSync(process.execPath, join(bin, 'node'));
    const r = spawnSync(process.execPath, [CLI, 'start', '--console-port', '0', '--metrics-port', '0'], {
      encoding: 'utf8',
      env: { PATH: bin, HOME: dir, LOOPGUARD_STACK_DIR: join(dir, 'no-java-stack'), LOG_LEVEL: 'warn' },
    });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^loopguard: no broker is configured and the embedded Kafka needs Java, .*install a Java 17\+ runtime/)]);
  });
  it('refuses a bad console port in one line', () => {
    const r = lg(['console', '--port', 'http']);
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim().split('\n')[0]).toMatch(/--port must be a port number/);
  });
});
