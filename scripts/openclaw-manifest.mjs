// Writes openclaw.plugin.json from the built config schema (run `npm run build` first).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openClawManifest } from '../dist/integrations/openclaw/manifest.js';

const file = join(import.meta.dirname, '..', 'openclaw.plugin.json');
writeFileSync(file, JSON.stringify(openClawManifest(), null, 2) + '\n');
console.log(`wrote ${file}`);
