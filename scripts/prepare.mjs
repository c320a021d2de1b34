#!/usr/bin/env node
// `npm run prepare`: builds dist/. npm runs it after `npm install` in a clone, where the dev
// dependencies (TypeScript, esbuild) are installed; but `npm install -g .` in a fresh clone runs
// it before installing anything, and then installs no dev dependencies at all, so the build
// found no `tsc`. Then the clone's dependencies, dev ones included, are installed here first.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];

function run(args) {
  const r = spawnSync(npm[0], [...npm.slice(1), ...args], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const has = (pkg) => {
  try {
    require.resolve(`${pkg}/package.json`);
    return true;
  } catch {
    return false;
  }
};

if (!has('typescript') || !has('esbuild')) {
  process.stderr.write('loopguard: the build needs the dev dependencies (TypeScript, esbuild), which this install has not put in place: installing them in this clone first\n');
  // --ignore-scripts: this very script must not run again inside; optional native clients
  // (librdkafka) are then not built: loopguard runs on kafkajs, and says so.
  run(['install', '--include=dev', '--include=optional', '--ignore-scripts', '--no-audit', '--no-fund', '--global=false']);
}
run(['run', 'build']);
