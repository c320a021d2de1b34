// The frameworks are optional: the built package entries load none of them, and an adapter loads
// only its own framework and never another adapter. Read from the built files' imports (what
// Node would load), following relative imports through the whole graph.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, string>; peerDependencies: Record<string, string> };
const frameworks = Object.keys(pkg.peerDependencies);
/** The framework packages each adapter may load (itself and its scoped siblings). */
const own: Record<string, readonly string[]> = {
  './ai-sdk': ['ai'],
  './openai-agents': ['@openai/agents'],
  './langchain': ['langchain', '@langchain/core'],
  './mastra': ['@mastra/core'],
};

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every file and bare specifier a built module loads, transitively. */
function graph(entry: string): { files: Set<string>; bare: Set<string> } {
  const files = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = (m[1] ?? m[2] ?? m[3])!;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
      else bare.add(spec);
    }
  };
  visit(join(root, entry));
  return { files, bare };
}

const packageOf = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
const integrationOf = (file: string) => /^dist\/integrations\/([^/]+)\//.exec(relative(root, file))?.[1];

describe('optional frameworks', () => {
  it('declares every framework as an optional peer', () => {
    const meta = (pkg as unknown as { peerDependenciesMeta: Record<string, { optional?: boolean }> }).peerDependenciesMeta;
    expect(frameworks.length).toBeGreaterThan(0);
    for (const f of frameworks) expect(meta[f]?.optional).toBe(true);
  });

  for (const [subpath, target] of Object.entries(pkg.exports)) {
    it(`${subpath} loads no framework but its own, and no other adapter`, () => {
      const { files, bare } = graph(target);
      const loaded = [...bare].map(packageOf).filter((p) => frameworks.includes(p) || frameworks.some((f) => p.startsWith(`${f.split('/')[0]}/`)));
      expect(loaded.filter((p) => !(own[subpath] ?? []).includes(p))).toEqual([]);
      const adapters = new Set([...files].map(integrationOf).filter((i) => i !== undefined));
      const self = subpath.startsWith('./') && target.startsWith('./dist/integrations/') ? [integrationOf(join(root, target))] : [];
      expect([...adapters]).toEqual(self);
    });
  }
});
