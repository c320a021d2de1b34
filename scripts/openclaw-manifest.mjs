// Writes openclaw.plugin.json from the built config schema (run `npm run build` first),
// formatted as `npm run lint` expects.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as prettier from 'prettier';
import { openClawManifest } from '../dist/integrations/openclaw/manifest.js';

const file = join(import.meta.dirname, '..', 'openclaw.plugin.json');
const options = (await prettier.resolveConfig(file)) ?? {};
writeFileSync(file, await prettier.format(JSON.stringify(openClawManifest()), { ...options, filepath: file }));
console.log(`wrote ${file}`);
