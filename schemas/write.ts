// Writes the event and decision schemas derived from the contract to schemas/*.avsc, where
// users and other clients read them. `npm run schemas` after changing a declaration; a spec
// fails while a committed file differs from what the contract derives.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { avroSchemaOf, CHANNEL_EVENT_CONTRACT, DECISION_CONTRACT, TOOL_EVENT_CONTRACT } from './contract.js';
import { SCHEMA_DIR } from './state.js';

export const DERIVED_SCHEMAS = { 'tool-event': TOOL_EVENT_CONTRACT, 'channel-event': CHANNEL_EVENT_CONTRACT, decision: DECISION_CONTRACT } as const;

/** One field per line: easy to read, and a changed field is a one-line diff. */
export function schemaText(name: keyof typeof DERIVED_SCHEMAS): string {
  const { fields, ...head } = avroSchemaOf(DERIVED_SCHEMAS[name]);
  const top = Object.entries(head).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},`);
  return ['{', ...top, '  "fields": [', fields.map((f) => `    ${JSON.stringify(f)}`).join(',\n'), '  ]', '}', ''].join('\n');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]).endsWith(`${'schemas'}/write.js`)) {
  for (const name of Object.keys(DERIVED_SCHEMAS) as Array<keyof typeof DERIVED_SCHEMAS>) {
    writeFileSync(resolve(SCHEMA_DIR, `${name}.avsc`), schemaText(name));
    process.stdout.write(`wrote schemas/${name}.avsc\n`);
  }
}
