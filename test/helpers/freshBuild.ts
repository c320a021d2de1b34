// Global setup of both projects: the CLI specs and every integration test run the built command
// (dist/cli/main.js), so a source edited after the last build would be tested as it was before.
// This fails the run at once, naming the newer sources, instead of rebuilding: a build takes a
// minute on a small machine, would race with a build already running, and writes files behind the
// user's back; a check of modification times takes milliseconds and always says the same thing.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
/** Every folder `npm run build` compiles (tsconfig.build.json), and what it leaves out. */
const SOURCES = ['processors', 'topology', 'schemas', 'sdk', 'cli', 'integrations'];
const NOT_BUILT = (path: string) => path.endsWith('.spec.ts') || path.endsWith('.d.ts') || path.startsWith('schemas/testing/') || path.startsWith('sdk/testing/');
/** Written last by the build (scripts/bundle-cli.mjs, after tsc): the build's time. */
const STAMP = join('dist', 'cli', 'loopguard.cjs');

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return sources(path);
    return path.endsWith('.ts') && !NOT_BUILT(path) ? [path] : [];
  });
}

/** The sources modified after the last build, newest first; all of them when there is no build. */
export function staleSources(root = ROOT): { built: boolean; stale: string[] } {
  let builtAt: number;
  try {
    builtAt = statSync(join(root, STAMP)).mtimeMs;
  } catch {
    return { built: false, stale: [] };
  }
  const newer = SOURCES.flatMap(sources)
    .map((path) => ({ path, at: statSync(join(root, path)).mtimeMs }))
    .filter((s) => s.at > builtAt)
    .sort((a, b) => b.at - a.at);
  return { built: true, stale: newer.map((s) => relative(root, join(root, s.path))) };
}

export default function setup() {
  const { built, stale } = staleSources();
  if (!built) throw new Error(`loopguard: ${STAMP} is missing: run \`npm run build\` before the tests`);
  if (stale.length > 0) {
    const shown = stale.slice(0, 5).join(', ') + (stale.length > 5 ? `, and ${stale.length - 5} more` : '');
    throw new Error(`loopguard: the build in dist/ is older than ${stale.length} source file(s) (${shown}): run \`npm run build\` before the tests`);
  }
}
