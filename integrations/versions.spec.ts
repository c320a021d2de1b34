// The README's table of what each framework needs, against what the frameworks themselves
// declare: the Node their installed package asks for (`engines`), and the version loopguard's
// peer range accepts. A new user on Node 20 got `ai` 6 and an ERESOLVE (issue 42).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string>; engines: { node: string } };

/** The table's row for a framework: its install command and its Node. */
function row(framework: string): { install: string; node: string } {
  const line = readme.split('\n').find((l) => l.startsWith(`| ${framework} |`));
  if (line === undefined) throw new Error(`the README has no row for ${framework} in its table of framework versions`);
  const [, , install, node] = line.split('|').map((c) => c.trim());
  return { install: install!, node: node! };
}

/** The lowest Node a package's `engines.node` (">=22", ">=22.13.0") allows. */
function minimumNode(manifest: string): string {
  const engines = (JSON.parse(readFileSync(manifest, 'utf8')) as { engines?: { node?: string } }).engines?.node ?? '>=20';
  const [, major, minor] = /^>=\s*(\d+)(?:\.(\d+))?/.exec(engines)!;
  return minor === undefined || minor === '0' ? major! : `${major}.${minor}`;
}

const manifest = (...at: string[]) => join(ROOT, ...at, 'package.json');

describe("the README's framework versions", () => {
  it.each([
    ['Vercel AI SDK', 'ai', manifest('node_modules', 'ai')],
    ['OpenAI Agents SDK', '@openai/agents', manifest('node_modules', 'openai')],
    ['LangChain.js', 'langchain', manifest('node_modules', 'langchain')],
  ])('name for %s the version loopguard accepts and the Node its package asks for', (framework, peer, engines) => {
    const r = row(framework);
    const major = /^\^(\d+(?:\.\d+)?)/.exec(pkg.peerDependencies[peer]!)![1]!;
    const installs = new RegExp(`${peer.replace('/', '\\/')}@${major.replace('.', '\\.')}\\b`).test(r.install) || r.install.includes(`${peer}@${major.split('.')[0]}`);
    expect(installs, `${framework}: "${r.install}" installs ${peer} ${pkg.peerDependencies[peer]}`).toBe(true);
    expect(r.node, framework).toMatch(new RegExp(`^${minimumNode(engines).replace('.', '\\.')} or newer`));
  });

  it('name for Mastra the version loopguard accepts and the Node it asks for (its package lives in test/hosts, installed on demand)', () => {
    const r = row('Mastra');
    expect(r.install).toContain(`@mastra/core@${/^\^(\d+)/.exec(pkg.peerDependencies['@mastra/core']!)![1]}`);
    expect(r.install).toContain(/^\^\d+\.(\d+)/.exec(pkg.peerDependencies['@mastra/core']!)![1]);
    const host = manifest('test', 'hosts', 'mastra', 'node_modules', '@mastra', 'core');
    expect(r.node).toMatch(new RegExp(`^${existsSync(host) ? minimumNode(host).replace('.', '\\.') : '22\\.13'} or newer`));
  });

  it('say loopguard itself runs on the Node its package.json names', () => {
    expect(pkg.engines.node).toBe('>=20');
    expect(readme).toContain('loopguard itself runs on Node 20, 22 and 24');
  });
});
