#!/usr/bin/env node
// Bundles the `loopguard` command after `tsc` (part of `npm run build`): dist/cli/main.js (the
// `bin`) and the replay parse worker become esbuild bundles, so starting the CLI reads a few
// files instead of hundreds (zod alone is ~190 modules); node Node 20 has no compile cache.
// Each subcommand stays its own chunk, loaded only when named.
//
// Only the packages in BUNDLED are inlined (pure JavaScript, no files read beside their code);
// every other package stays an ordinary import resolved from node_modules at run time, so a
// dependency added later works unbundled until it is listed here.
//
// Chunks go to dist/cli/, beside main.js, for two paths computed from `import.meta.url`: the
// parse worker (`./parseWorker.js`) and schemas/state.ts's `../../schemas` both resolve from
// a chunk there exactly as they do from the tsc output.
import { build } from 'esbuild';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const BUNDLED = new Set(['zod', 'commander', 'json5', 'pino']);

const packageName = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

/** Bare specifiers (packages) stay external unless listed; relative imports are bundled. */
const externalPackages = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { path: args.path, external: true };
      // A bundled package's own dependencies come with it.
      const fromPackage = args.importer.includes('/node_modules/');
      if (!fromPackage && !BUNDLED.has(packageName(args.path))) return { path: args.path, external: true };
      return undefined;
    });
  },
};

// zod's `z` export is the namespace of all of zod, so `import { z } from 'zod'` bundles all of it
// (750 KB to compile at every start); as a namespace import, only what is used (180 KB). The
// two forms are the same to the code (zod's docs use the second).
const zodNamespace = {
  name: 'zod-namespace',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const text = await readFile(args.path, 'utf8');
      return { contents: text.replace(/^import \{ z \} from 'zod';$/m, "import * as z from 'zod';"), loader: 'ts' };
    });
  },
};

// Chunk names change with their contents: last build's would pile up.
const OUT = resolve(ROOT, 'dist/cli');
for (const f of existsSync(OUT) ? readdirSync(OUT) : []) if (/^chunk-.*\.js(\.map)?$/.test(f)) rmSync(resolve(OUT, f));

// commander loads node:child_process (and with it net, dgram…) at start only to run executable
// subcommands, which loopguard has none of: it gets a stand-in that loads it on first use.
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) => (args.importer.includes('/node_modules/commander/') ? { path: 'child_process', namespace: 'lazy' } : undefined));
    b.onLoad({ filter: /^child_process$/, namespace: 'lazy' }, () => ({
      contents: "let m; module.exports = new Proxy({}, { get: (_, k) => (m ??= require('node:child_process'))[k] });",
      loader: 'js',
    }));
  },
};

await build({
  absWorkingDir: ROOT,
  entryPoints: [
    { in: 'cli/main.ts', out: 'main' },
    // Its own file, so main.js imports it first and it runs before any schema is built (inlined,
    // esbuild would run it after the chunks main.js imports).
    { in: 'cli/jitless.ts', out: 'jitless' },
    { in: 'cli/replay/parseWorker.ts', out: 'parseWorker' },
  ],
  outdir: 'dist/cli',
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: process.env.LG_MIN === '1',
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  plugins: [lazyChildProcess, externalPackages, zodNamespace],
  // Bundled CommonJS (commander, json5) calls require for Node's own modules.
  banner: { js: "import { createRequire as __loopguardRequire } from 'node:module'; const require = __loopguardRequire(import.meta.url);" },
  logLevel: 'warning',
});
