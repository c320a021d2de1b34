#!/usr/bin/env node
// LoopBench: how many calls a loop burns before each guard stops it, and how often each guard
// stops or warns legitimate work, on one labelled corpus (bench/loopbench/). Prints one table.
//
//   npm run build && npm run loopbench [-- --families] [-- --per-family 50] [-- --write-corpus DIR]
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { corpus, DEFAULT_PER_FAMILY, DEFAULT_SEED, FAMILIES } from './loopbench/corpus.mjs';
import { eventsOf } from './loopbench/events.mjs';
import { rows } from './loopbench/rows.mjs';
import { scoreTrace, summarise } from './loopbench/score.mjs';

const HELP = `usage: npm run loopbench [-- options]      (node bench/loopbench.mjs; build first: npm run build)

Runs every row (loopguard's rule sets and the anchor guards) over LoopBench's labelled corpus,
closed loop, and prints one table: loops stopped, calls and tokens wasted before the stop, false
blocks and false warnings on legitimate work. --families adds the same per family.

  --per-family N     traces per family (default ${DEFAULT_PER_FAMILY})
  --seed N           corpus seed (default ${DEFAULT_SEED})
  --families         also print the per-family breakdown
  --json             print the results as JSON instead of tables
  --write-corpus DIR write the corpus as JSON-lines event files (docs/behaviour.md §1), one per
                     family, plus labels.json, and exit
  -h, --help         show this text`;

const fmtPct = (x) => (x === null ? '—' : `${x.toFixed(x > 0 && x < 1 ? 1 : 0)} %`);
const fmtN = (x) => (x === null ? '—' : String(x));

function table(header, lines) {
  const out = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const l of lines) out.push(`| ${l.join(' | ')} |`);
  return out.join('\n');
}

function main() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        'per-family': { type: 'string', default: String(DEFAULT_PER_FAMILY) },
        seed: { type: 'string', default: String(DEFAULT_SEED) },
        families: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        'write-corpus': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (e) {
    console.error(`loopbench: ${e.message}`);
    process.exit(2);
  }
  if (values.help) return console.log(HELP);
  const perFamily = Number(values['per-family']);
  const seed = Number(values.seed);
  if (!Number.isSafeInteger(perFamily) || perFamily < 1) return fail(`--per-family must be a whole number of at least 1 (got ${values['per-family']})`);
  if (!Number.isSafeInteger(seed)) return fail(`--seed must be a whole number (got ${values.seed})`);
  const traces = corpus({ seed, perFamily });
  if (values['write-corpus'] !== undefined) return writeCorpus(values['write-corpus'], traces);

  const results = rows().map((guard) => {
    const scored = traces.map((t) => scoreTrace(guard, t));
    const byFamily = Object.fromEntries(FAMILIES.map((f) => [f.name, summarise(scored.filter((x) => x.family === f.name))]));
    return { row: guard.name, all: summarise(scored), byFamily };
  });
  if (values.json) return console.log(JSON.stringify({ seed, perFamily, results }, null, 2));

  const loops = traces.filter((t) => t.kind === 'loop').length;
  console.log(`LoopBench: ${traces.length} traces (${loops} loops, ${traces.length - loops} legitimate), ${FAMILIES.length} families × ${perFamily}, seed ${seed}\n`);
  console.log(
    table(
      ['row', 'loops stopped', 'blocked before the loop', 'wasted calls p50 / p95', 'tokens wasted p50 / p95', 'false blocks (traces / calls)', 'false warnings (traces / calls)'],
      results.map(({ row, all: a }) => [
        row,
        fmtPct(a.stopped),
        fmtPct(a.early),
        `${fmtN(a.wastedMedian)} / ${fmtN(a.wastedP95)}`,
        `${fmtN(a.tokensMedian)} / ${fmtN(a.tokensP95)}`,
        `${fmtPct(a.falseBlockTraces)} / ${fmtPct(a.falseBlockCalls)}`,
        `${fmtPct(a.falseWarnTraces)} / ${fmtPct(a.falseWarnCalls)}`,
      ]),
    ),
  );
  if (!values.families) return;
  console.log('\nLoop families: stopped, wasted calls p50 / p95 (and blocked before the loop, when any)');
  console.log(
    table(
      ['family', ...results.map((r) => r.row)],
      FAMILIES.filter((f) => f.kind === 'loop').map((f) => [f.name, ...results.map((r) => byFam(r, f.name))]),
    ),
  );
  console.log('\nLegitimate families: false blocks / false warnings, % of traces');
  console.log(
    table(
      ['family', ...results.map((r) => r.row)],
      FAMILIES.filter((f) => f.kind === 'legit').map((f) => [
        f.name,
        ...results.map((r) => `${fmtPct(r.byFamily[f.name].falseBlockTraces)} / ${fmtPct(r.byFamily[f.name].falseWarnTraces)}`),
      ]),
    ),
  );
}

function byFam(r, name) {
  const s = r.byFamily[name];
  return `${fmtPct(s.stopped)}, ${fmtN(s.wastedMedian)} / ${fmtN(s.wastedP95)}${s.early > 0 ? ` (${fmtPct(s.early)} early)` : ''}`;
}

function writeCorpus(dir, traces) {
  mkdirSync(dir, { recursive: true });
  const labels = {};
  for (const f of FAMILIES) {
    const mine = traces.filter((t) => t.family === f.name);
    writeFileSync(
      join(dir, `${f.name}.jsonl`),
      mine
        .flatMap((t) => eventsOf(t))
        .map((e) => JSON.stringify(e))
        .join('\n') + '\n',
    );
    for (const t of mine) labels[t.id] = { family: t.family, kind: t.kind, label: t.label };
  }
  writeFileSync(join(dir, 'labels.json'), JSON.stringify(labels, null, 1));
  console.error(`loopbench: wrote ${traces.length} traces of ${FAMILIES.length} families to ${dir}`);
}

function fail(msg) {
  console.error(`loopbench: ${msg}`);
  process.exit(2);
}

main();
