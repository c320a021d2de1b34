#!/usr/bin/env node
// CPU per event of what happens to a parsed raw event before the fold: the topology's validation
// and hashing (`route`), this build against another, in one process. Lines of a JSON-lines file
// are parsed once up front; each pass routes all of them through one build, and the passes
// alternate between the builds (ABBA), so both see the same machine. Reported: medians and the
// least of the measured passes (the first two of each build are warm-up), in µs per event of
// process.cpuUsage, and this build's ratio to the other.
//
//   npm run build && node bench/route-ab.mjs --base bench/data/base/dist [--file bench/data/raw.jsonl] [--events 20000] [--passes 12]
import { createReadStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { helpFromHeader } from './lib/help.mjs';
import { ROOT } from './lib/streams.mjs';

helpFromHeader(import.meta.filename);

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    file: { type: 'string', default: join(ROOT, 'bench/data/raw.jsonl') },
    events: { type: 'string', default: '20000' },
    passes: { type: 'string', default: '12' },
  },
});
if (values.base === undefined) {
  process.stderr.write('usage: node bench/route-ab.mjs --base DIST [--file FILE] [--events N] [--passes N]\n');
  process.exit(2);
}
const CONFIG = join(ROOT, 'examples/config/tool-loop-agent.json5');

async function router(dist) {
  const at = (p) => import(pathToFileURL(join(resolve(dist), p)).href);
  const { buildTopology } = await at('topology/build.js');
  const { loadConfig } = await at('topology/config.js');
  const { route } = await at('topology/topology.js');
  const topology = buildTopology(loadConfig(CONFIG));
  return (value) => route(topology, value);
}

const builds = { this: await router(join(ROOT, 'dist')), base: await router(values.base) };
const events = [];
for await (const line of createInterface({ input: createReadStream(values.file), crlfDelay: Infinity })) {
  if (line.trim() === '') continue;
  events.push(JSON.parse(line));
  if (events.length >= Number(values.events)) break;
}
const perEvent = { this: [], base: [] };
for (let pass = 0; pass < Number(values.passes); pass++) {
  for (const name of pass % 2 === 0 ? ['base', 'this'] : ['this', 'base']) {
    const route = builds[name];
    const before = process.cpuUsage();
    let invalid = 0;
    for (const e of events) if (!route(e).ok) invalid++;
    const spent = process.cpuUsage(before);
    if (invalid > 0) throw new Error(`${name}: ${invalid} events invalid`);
    if (pass >= 2) perEvent[name].push((spent.user + spent.system) / events.length);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const [t, b] = [median(perEvent.this), median(perEvent.base)];
console.log(`node ${process.version}, ${events.length} events of ${values.file}, ${perEvent.this.length} measured passes each; CPU µs per event`);
console.log(`this  median ${t.toFixed(2)}  least ${Math.min(...perEvent.this).toFixed(2)}`);
console.log(`base  median ${b.toFixed(2)}  least ${Math.min(...perEvent.base).toFixed(2)}`);
console.log(`this ÷ base ${(t / b).toFixed(3)}`);
