// `loopguard mcp-proxy`'s refusals, as the host that starts it sees them: the built CLI.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli', 'main.js');
const lg = (args: string[]) => spawnSync('node', [CLI, 'mcp-proxy', ...args], { encoding: 'utf8', input: '', env: { ...process.env, LOG_LEVEL: 'warn' } });

describe('loopguard mcp-proxy refuses bad options with one line', () => {
  it.each([
    [['--', 'node', 's.js'], /^loopguard: required option '--failure <policy>' not specified\n$/],
    [['--failure', 'maybe', '--', 'node', 's.js'], /^loopguard: option '--failure <policy>' argument 'maybe' is invalid\. Allowed choices are open, closed\.\n$/],
    [['--failure', 'open', '--timeout-ms', '0', '--', 'node', 's.js'], /^loopguard: .*--timeout-ms must be a positive integer, got 0\n$/],
    [['--failure', 'open', '--session', ' ', '--', 'node', 's.js'], /^loopguard: .*--session must not be blank\n$/],
    [['--failure', 'open'], /^loopguard: missing required argument 'server'\n$/],
  ])('%j', (args, line) => {
    const r = lg(args);
    expect(r.stderr).toMatch(line);
    expect(r.stdout).toBe(''); // stdout is the MCP channel
    expect(r.status).not.toBe(0);
  });
  it('prints help with examples on stdout', () => {
    const r = lg(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: loopguard mcp-proxy [options] <server...>');
    expect(r.stdout).toContain('loopguard mcp-proxy --failure open -- npx -y @modelcontextprotocol/server-filesystem');
  });
});
