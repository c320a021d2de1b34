// Where the loopguard package lives on disk, found from this module whether it runs from dist/
// (installed or built) or from source (tests): the nearest folder up with loopguard's
// package.json. Shipped files (the starter config, the stack script, the console's page) are
// read from there.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface PackageJson {
  readonly name: string;
  readonly version: string;
}

function findRoot(): { root: string; pkg: PackageJson } {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
      if (pkg.name === 'loopguard') return { root: dir, pkg };
    }
    if (dirname(dir) === dir) throw new Error('loopguard package.json not found above ' + fileURLToPath(import.meta.url));
  }
}

let found: ReturnType<typeof findRoot> | undefined;
const info = () => (found ??= findRoot());

export const packageRoot = (): string => info().root;
export const packageVersion = (): string => info().pkg.version;
/** A file shipped in the package, by its path inside it. */
export const packageFile = (path: string): string => join(packageRoot(), path);
