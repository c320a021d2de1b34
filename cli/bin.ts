#!/usr/bin/env node
// The `loopguard` executable (dist/cli/main.js): loads the command, bundled as one CommonJS file
// (dist/cli/loopguard.cjs, see scripts/bundle-cli.mjs), through V8's code cache, so a start
// does not parse and compile the same 500 KB again. Node 22 does this itself
// (module.enableCompileCache); Node 20, which loopguard supports, has only vm.Script's
// cachedData. Measured in bench/README.md (start-up; the fourth round, in `git log -p bench/README.md`).
//
// The cache (loopguard.cjs.cache, beside the bundle) is written by `npm run build`, and again
// by any run that finds it missing or refused by V8 (another Node version, other V8 flags), if
// the directory is writable; it is a speed-up only, and every failure to read or write it is
// ignored. V8 checks it against the source, its own version and its flags, so a stale cache is
// refused, never run.
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script, constants } from 'node:vm';

const here = dirname(fileURLToPath(import.meta.url));
const bundle = join(here, 'loopguard.cjs');
// LOOPGUARD_CODE_CACHE: another file for it (an install whose directory is read-only).
const cacheFile = process.env['LOOPGUARD_CODE_CACHE'] || `${bundle}.cache`;

const readCache = (): Buffer | undefined => {
  try {
    return readFileSync(cacheFile);
  } catch {
    return undefined;
  }
};

/**
 * The bundle, compiled with the cache if there is one. Neither the cache nor the source is kept
 * past this (a megabyte, for the whole run): V8 holds the source it needs.
 */
function compile(): { script: Script; hadCache: boolean } {
  const cachedData = readCache();
  const script = new Script(
    // The same wrapper Node gives a CommonJS module; the bundle's first line is its #! line.
    `(function (exports, require, module, __filename, __dirname) {${readFileSync(bundle, 'utf8').replace(/^#!.*/, '')}\n})`,
    { filename: bundle, cachedData, importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER },
  );
  return { script, hadCache: cachedData !== undefined };
}
const { script, hadCache } = compile();

interface Entry {
  /** Sets back the V8 flags the command changed at run time: V8 refuses a cache made under other flags. */
  restoreV8Flags?: () => void;
}
const module = { exports: {} as Entry };
(script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, createRequire(bundle), module, bundle, here);

if (!hadCache || script.cachedDataRejected === true) {
  // At the end, so the cache holds every function this run compiled, not only the top level.
  process.once('beforeExit', () => {
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    try {
      module.exports.restoreV8Flags?.();
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, cacheFile); // whole, even with other runs writing it at the same time
    } catch {
      // A read-only install: every start compiles, as without a cache.
      rmSync(tmp, { force: true });
    }
  });
}
