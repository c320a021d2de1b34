#!/usr/bin/env node
// Bundles the `loopguard` command after `tsc` (part of `npm run build`), so starting it reads
// three files instead of hundreds (zod alone is ~190 modules):
//   dist/cli/loopguard.cjs   the command, one CommonJS file;
//   dist/cli/main.js         the `bin` (cli/bin.ts): loads loopguard.cjs through V8's code cache,
//                            dist/cli/loopguard.cjs.cache, which a first run made here writes;
//   dist/cli/parseWorker.js  replay's parse worker.
// Node 20 has no compile cache for ES modules (Node 22's module.enableCompileCache), hence
// CommonJS for the command. Measured in bench/README.md (start-up).
//
// Only the packages in BUNDLED are inlined (pure JavaScript, no files read beside their code);
// every other package stays an ordinary import resolved from node_modules at run time, so a
// dependency added later works unbundled until it is listed here.
//
// Everything goes to dist/cli/ for two paths computed from `import.meta.url`: the parse worker
// (`./parseWorker.js`) and schemas/state.ts's `../../schemas` both resolve from there exactly
// as they do from the tsc output.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

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

// Files earlier builds bundled into chunks.
const OUT = resolve(ROOT, 'dist/cli');
for (const f of existsSync(OUT) ? readdirSync(OUT) : []) if (/^(chunk-.*\.js|jitless\.js)(\.map)?$/.test(f)) rmSync(resolve(OUT, f));

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

const common = {
  absWorkingDir: ROOT,
  outdir: 'dist/cli',
  bundle: true,
  platform: 'node',
  target: 'node20',
  minify: process.env.LG_MIN === '1',
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  logLevel: 'warning',
};

// The command: one CommonJS file, every subcommand in it behind a lazy init (esbuild turns
// `await import('./x.js')` into one), so cli/bin.ts can load it through V8's code cache.
// `import.meta.url` is the bundle's own URL, as it was each chunk's.
await build({
  ...common,
  entryPoints: [{ in: 'cli/main.ts', out: 'loopguard' }],
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  define: { 'import.meta.url': '__loopguardUrl' },
  banner: { js: "const __loopguardUrl = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [lazyChildProcess, externalPackages, zodNamespace],
});

// The executable (main.js, the package's bin) and the replay parse worker: ES modules.
await build({
  ...common,
  entryPoints: [
    { in: 'cli/bin.ts', out: 'main' },
    { in: 'cli/replay/parseWorker.ts', out: 'parseWorker' },
  ],
  format: 'esm',
  plugins: [externalPackages, zodNamespace],
  // Bundled CommonJS (pino in the worker's logger, if any) calls require for Node's own modules.
  banner: { js: "import { createRequire as __loopguardRequire } from 'node:module'; const require = __loopguardRequire(import.meta.url);" },
});
// The package's bin, run by its shebang: executable whoever links it. npm makes a bin executable
// only when it links it, and npx caches its link per project path: a clone built again in the
// same place (or a dist/ removed and rebuilt) was refused with "loopguard: Permission denied".
chmodSync(resolve(OUT, 'main.js'), 0o755);

// The code cache, made by a run of what start-up matters most for: `replay` of one event.
const training = mkdtempSync(join(tmpdir(), 'loopguard-build-'));
try {
  const oneEvent = join(training, 'one.jsonl');
  writeFileSync(
    oneEvent,
    `${JSON.stringify({ type: 'tool_call', ts: 1_700_000_000_000, sessionKey: 's', runId: 'r', agentId: 'a', toolName: 'read', toolCallId: 'c', args: { path: '/a' } })}\n`,
  );
  rmSync(resolve(OUT, 'loopguard.cjs.cache'), { force: true });
  const r = spawnSync(process.execPath, [resolve(OUT, 'main.js'), 'replay', '--config', 'examples/config/tool-loop-agent.json5', oneEvent], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`bundle-cli: the built CLI failed its first run (exit ${r.status}): ${r.stderr}`);
  if (!existsSync(resolve(OUT, 'loopguard.cjs.cache'))) throw new Error('bundle-cli: the built CLI wrote no code cache (dist/cli/loopguard.cjs.cache)');
} finally {
  rmSync(training, { recursive: true, force: true });
}
