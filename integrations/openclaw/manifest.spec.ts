import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { openClawManifest } from './manifest.js';

describe('the OpenClaw plugin manifest', () => {
  it('is the one config schema, as `npm run openclaw:manifest` writes it', () => {
    const file = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'openclaw.plugin.json'), 'utf8')) as unknown;
    expect(file).toEqual(openClawManifest());
  });

  it('is installed with the package, and package.json points OpenClaw at the built entry', () => {
    expect(pkg.files).toContain('openclaw.plugin.json');
    expect(pkg.openclaw.extensions).toEqual([pkg.exports['./openclaw']]);
  });
});
