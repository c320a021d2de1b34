// --help for the bench scripts: the script's own header comment (what it measures and how to run
// it), printed when --help or -h is among the arguments.
import { readFileSync } from 'node:fs';

/** Prints the header comment of `file` and exits when the arguments ask for help. */
export function helpFromHeader(file, argv = process.argv.slice(2)) {
  if (!argv.includes('--help') && !argv.includes('-h')) return;
  const lines = readFileSync(file, 'utf8').split('\n');
  const header = [];
  for (const line of lines.slice(lines[0]?.startsWith('#!') ? 1 : 0)) {
    if (!line.startsWith('//')) break;
    header.push(line.replace(/^\/\/ ?/, ''));
  }
  process.stdout.write(`${header.join('\n')}\n`);
  process.exit(0);
}
