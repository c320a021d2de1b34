#!/usr/bin/env node
// The most a second thread could buy `loopguard replay` on this machine. Two copies of serial
// replay (`--workers 0`) run at once, sharing nothing, is the best case of any split of one
// replay's work over two threads: no hand-over, no duplicated work, no waiting on each other.
// What it still costs is what two busy cores cost each other here (shared caches, memory
// bandwidth, a host that may give the two virtual cores less than two whole cores); measured as
// the wall time of the pair against one copy alone. A replay split over two threads still starts
// once, so its floor is start-up (replay of a one-line file, same rounds) plus half of the rest
// of the pair's wall time, at today's cost per event; its ratio to parse-only (bench/parse-only.mjs,
// same rounds) is the highest a parallel replay could reach without making each event cheaper.
//
//   npm run build && node bench/parallel-ceiling.mjs [--rounds 3] [--quick]
//
// Streams: the standard 200k raw and pre-hashed streams in bench/data/ (generated when missing;
// --quick: 20k). Every round runs the steps in a rotated order.
import { parseArgs } from 'node:util';
import { helpFromHeader } from './lib/help.mjs';
import { interleaved, median, timedNode } from './lib/proc.mjs';
import { replayArgs } from './lib/replay.mjs';
import { oneLineFile, ROOT, stream } from './lib/streams.mjs';

helpFromHeader(import.meta.filename);
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, quick: { type: 'boolean', default: false } } });
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) {
  process.stderr.write(`loopguard: parallel-ceiling: --rounds must be a whole number of at least 1 (got ${values.rounds})\n`);
  process.exit(2);
}
const log = (m) => process.stderr.write(`parallel-ceiling: ${m}\n`);
const env = { ...process.env, LOG_LEVEL: 'warn' };
const runs = values.quick ? 200 : 2000;

const kinds = [
  { name: 'raw', ...(await stream({ runs, calls: 50 }, log)) },
  { name: 'pre-hashed', ...(await stream({ runs, calls: 50, hashed: true }, log)) },
];
const start = { name: 'replay of one line (start-up)', run: () => timedNode(replayArgs(oneLineFile(), 0), { env }) };
const steps = kinds.flatMap((k) => [
  { name: `parse-only ${k.name}`, run: () => timedNode([`${ROOT}/bench/parse-only.mjs`, k.file], { env }) },
  { name: `replay ${k.name}, alone`, run: () => timedNode(replayArgs(k.file, 0), { env }) },
  {
    name: `replay ${k.name}, two at once`,
    run: async () => {
      const both = await Promise.all([timedNode(replayArgs(k.file, 0), { env }), timedNode(replayArgs(k.file, 0), { env })]);
      return { ms: Math.max(...both.map((b) => b.ms)) };
    },
  },
]);
steps.push(start);
const samples = await interleaved(rounds, steps, (name, r, x) => log(`round ${r + 1} ${name}: ${Math.round(x.ms)} ms`));
const ms = samples.map((xs) => median(xs.map((x) => x.ms)));
const startup = ms.at(-1);

console.log(`node ${process.version}, ${rounds} rounds, medians; start-up ${Math.round(startup)} ms`);
console.log('stream       parse-only  alone      two at once  slowdown  alone/parse-only  floor on 2 threads  its ratio');
kinds.forEach((k, i) => {
  const [parse, alone, pair] = ms.slice(3 * i, 3 * i + 3);
  const floor = startup + (pair - startup) / 2;
  const cells = [
    k.name.padEnd(12),
    `${Math.round(parse)} ms`.padEnd(11),
    `${Math.round(alone)} ms`.padEnd(10),
    `${Math.round(pair)} ms`.padEnd(12),
    `${(pair / alone).toFixed(2)}×`.padEnd(9),
    (parse / alone).toFixed(2).padEnd(17),
    `${Math.round(floor)} ms`.padEnd(19),
    (parse / floor).toFixed(2),
  ];
  console.log(cells.join(' '));
});
