#!/usr/bin/env node
// A/B of `loopguard replay` against another build, each next to parse-only (the issue 11
// floor) in one interleaved series: per stream, rounds of parse-only, the other build and this
// one, in rotated order. Prints medians of wall seconds (incl. process start) and of CPU seconds
// (user + sys, from /usr/bin/time, with max RSS): on a shared machine CPU time moves much less
// with other load than wall time does, so both are shown.
//
//   mkdir -p bench/data/base && cp -r dist bench/data/base/dist   # before changing anything
//   ln -s ../../../schemas ../../../package.json bench/data/base/   # what dist/ reads beside it
//   npm run build && node bench/replay-ab.mjs --base bench/data/base/dist --rounds 5 \
//     --stream raw=bench/data/raw.jsonl:1 --stream hashed=bench/data/hashed.jsonl:0
//
// A stream is NAME=FILE[:WORKERS] (WORKERS: a --workers value; omitted: replay's default).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { median } from './lib/proc.mjs';
import { ROOT } from './lib/streams.mjs';
import { helpFromHeader } from './lib/help.mjs';

helpFromHeader(import.meta.filename);

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    stream: { type: 'string', multiple: true, default: [] },
  },
});
if (values.base === undefined || values.stream.length === 0) {
  process.stderr.write('usage: node bench/replay-ab.mjs --base DIST --stream NAME=FILE[:WORKERS] ... [--rounds N]\n');
  process.exit(2);
}
const rounds = Number(values.rounds);
const CONFIG = join(ROOT, 'examples/config/tool-loop-agent.json5');
const ENV = { ...process.env, LOG_LEVEL: 'warn' };
const dir = mkdtempSync(join(tmpdir(), 'lg-replay-ab-'));

/** Runs `node ...args` (stdout discarded): wall s, CPU s (user + sys), max RSS MB. */
function timed(args) {
  const out = join(dir, 'time');
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-f', '%M %U %S', '-o', out, process.execPath, ...args], { stdio: ['ignore', 'ignore', 'inherit'], env: ENV });
    child.once('error', reject);
    child.once('exit', (code) => {
      const wall = (performance.now() - started) / 1000;
      if (code !== 0) return reject(new Error(`node ${args.join(' ')} exited with ${code}`));
      const [rss, user, sys] = readFileSync(out, 'utf8').trim().split('\n').at(-1).split(' ').map(Number);
      resolve({ wall, cpu: user + sys, rss: rss / 1024 });
    });
  });
}

const steps = values.stream.flatMap((spec) => {
  const [name, rest] = spec.split('=');
  const [file, workers] = rest.split(':');
  const w = workers === undefined ? [] : ['--workers', workers];
  return [
    { stream: name, build: 'parse-only', args: [join(ROOT, 'bench/parse-only.mjs'), file] },
    { stream: name, build: 'base', args: [join(values.base, 'cli/main.js'), 'replay', ...w, '--config', CONFIG, file] },
    { stream: name, build: 'this', args: [join(ROOT, 'dist/cli/main.js'), 'replay', ...w, '--config', CONFIG, file] },
  ];
});
const samples = steps.map(() => []);
try {
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < steps.length; k++) {
      const i = (k + r) % steps.length;
      const x = await timed(steps[i].args);
      samples[i].push(x);
      process.stderr.write(
        `round ${r + 1} ${steps[i].stream} ${steps[i].build}: ${x.wall.toFixed(2)} s, CPU ${x.cpu.toFixed(2)} s, ${x.rss.toFixed(0)} MB, load ${loadavg()[0].toFixed(2)}\n`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
for (let i = 0; i < steps.length; i += 3) {
  const [p, b, t] = [0, 1, 2].map((j) => samples[i + j]);
  const m = (xs, k) => median(xs.map((x) => x[k]));
  const perRound = (xs) => xs.map((x, r) => (p[r].wall / x.wall).toFixed(2)).join(' ');
  process.stdout.write(
    `${steps[i].stream}: vs parse-only (wall medians) base ${(m(p, 'wall') / m(b, 'wall')).toFixed(3)} [${perRound(b)}], this ${(m(p, 'wall') / m(t, 'wall')).toFixed(3)} [${perRound(t)}]; ` +
      `this/base speed: wall ${(m(b, 'wall') / m(t, 'wall')).toFixed(3)}, CPU ${(m(b, 'cpu') / m(t, 'cpu')).toFixed(3)}; ` +
      `s: parse-only ${m(p, 'wall').toFixed(2)}, base ${m(b, 'wall').toFixed(2)}, this ${m(t, 'wall').toFixed(2)}; max RSS base ${m(b, 'rss').toFixed(0)} MB, this ${m(t, 'rss').toFixed(0)} MB\n`,
  );
}
