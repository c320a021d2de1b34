#!/usr/bin/env node
// The floor replay is compared with: read a JSON-lines file with replay's own reader (1 MB
// chunks cut at line ends, split into lines) and JSON.parse every line, on one thread, nothing
// else. Run as its own process, so its wall time includes start-up exactly as replay's does.
//
//   npm run build && node bench/parse-only.mjs FILE      # prints the number of lines parsed
import { lineChunks, splitLines } from '../dist/cli/replay/batches.js';
import { openInput } from '../dist/cli/jsonLines.js';

const file = process.argv[2];
if (file === undefined || file === '--help' || file === '-h') {
  process.stdout.write('usage: node bench/parse-only.mjs FILE\n');
  process.exit(file === undefined ? 2 : 0);
}
let parsed = 0;
for await (const chunk of lineChunks(openInput(file).stream)) {
  for (const line of splitLines(chunk)) {
    if (line.trim() === '') continue;
    JSON.parse(line);
    parsed++;
  }
}
process.stdout.write(`${parsed}\n`);
