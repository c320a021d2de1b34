#!/usr/bin/env node
// Comparison mutation testing for the domain (processors/): flips one comparison operator at a
// time (< ↔ <=, > ↔ >=, === ↔ !==) in a source file, runs the unit specs that import that file
// and reports every mutant no test catches. A surviving mutant in a comparison the contract
// defines (docs/behaviour.md) is an edge no test reaches: add the test at the number and on each
// side of it.
//
// Invariant: the source tree is left as it was found. Each mutant is written in place (the specs
// import the sources), and the original is restored in `finally`, on SIGINT/SIGTERM/SIGHUP and
// on an uncaught error; a journal in node_modules/.cache keeps the original until it is restored,
// so even a `kill -9` is undone by the next run (which restores before doing anything else).
// Every write keeps the file's modification time, so the specs' stale-build check
// (test/helpers/freshBuild.ts) sees the tree as built.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..');
const JOURNAL_DIR = join(ROOT, 'node_modules', '.cache', 'loopguard-mutate');
// One journal per run (by pid), so runs over different files can go side by side.
const JOURNAL = join(JOURNAL_DIR, `journal-${process.pid}.json`);

const HELP = `usage: node scripts/mutate.mjs [options]

Flips each comparison operator (< <= > >= === !==) in processors/**/*.ts (specs and
processors/**/testing/ excluded) one at a time, runs the unit specs and lists the survivors.

  --files <list>     comma-separated substrings; only source files whose path contains one
                     (e.g. --files toolLoop/decide,botLoop/budgets). Default: every file.
  --specs <list>     comma-separated vitest filters to run for every mutant instead of the
                     specs that import the mutated file (\`vitest related\`),
                     e.g. --specs processors/toolLoop,processors/laws
  --budget <min>     stop starting new mutants after this many minutes (default: none);
                     the mutants not tried are counted as "not tried".
  --timeout <s>      a spec run longer than this counts as killed (timeout) (default 600)
  --json <path>      also write every mutant and its result as JSON
  --list             list the mutants and exit without running anything
  --vitest <args>    extra vitest arguments, space-separated (e.g. --vitest --no-isolate)
  --no-baseline      skip the unmutated run that checks the specs pass first
  --help             this text

Runs over disjoint files may go side by side when their specs do not import each other's files
(a spec broken by the other run's mutant would count as a kill).

Exit status: 0 when no mutant survived, 1 when some did, 2 on a usage or baseline error.
Example: node scripts/mutate.mjs --files toolLoop/decide --budget 30 --json /tmp/m.json`;

const FLIP = new Map([
  [ts.SyntaxKind.LessThanToken, '<='],
  [ts.SyntaxKind.LessThanEqualsToken, '<'],
  [ts.SyntaxKind.GreaterThanToken, '>='],
  [ts.SyntaxKind.GreaterThanEqualsToken, '>'],
  [ts.SyntaxKind.EqualsEqualsEqualsToken, '!=='],
  [ts.SyntaxKind.ExclamationEqualsEqualsToken, '==='],
]);

function fail(message) {
  console.error(`loopguard: ${message}`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { files: [], specs: [], budget: Infinity, timeout: 600, json: null, list: false, baseline: true, vitest: [] };
  const value = (i, name) => {
    if (i + 1 >= argv.length) fail(`${name} needs a value (see --help)`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') {
      console.log(HELP);
      process.exit(0);
    } else if (a === '--files') opts.files = value(i++, a).split(',').filter(Boolean);
    else if (a === '--specs') opts.specs = value(i++, a).split(',').filter(Boolean);
    else if (a === '--budget') opts.budget = positive(value(i++, a), a) * 60_000;
    else if (a === '--timeout') opts.timeout = positive(value(i++, a), a);
    else if (a === '--json') opts.json = resolve(value(i++, a));
    else if (a === '--vitest') opts.vitest = value(i++, a).split(' ').filter(Boolean);
    else if (a === '--list') opts.list = true;
    else if (a === '--no-baseline') opts.baseline = false;
    else fail(`unknown option ${a} (see --help)`);
  }
  return opts;
}

function positive(text, name) {
  const n = Number(text);
  if (!(n > 0)) fail(`${name} must be a positive number, got ${JSON.stringify(text)}`);
  return n;
}

function sourceFiles(dir) {
  const out = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== 'testing') out.push(...sourceFiles(path));
    } else if (path.endsWith('.ts') && !path.endsWith('.spec.ts') && !path.endsWith('.d.ts')) out.push(path);
  }
  return out.sort();
}

/** Every comparison in one file, as {file, start, end, from, to, line, column, text}. */
function mutantsOf(file) {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (ts.isBinaryExpression(node) && FLIP.has(node.operatorToken.kind)) {
      const op = node.operatorToken;
      const start = op.getStart(sf);
      const { line, character } = sf.getLineAndCharacterOfPosition(start);
      found.push({
        file,
        start,
        end: op.getEnd(),
        from: op.getText(sf),
        to: FLIP.get(op.kind),
        line: line + 1,
        column: character + 1,
        text: node.getText(sf).replace(/\s+/g, ' ').slice(0, 100),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

// --- the journal: the original of the file being mutated, until it is restored ---

/** Restores what runs that are no longer alive left mutated. */
function restoreFromJournals() {
  if (!existsSync(JOURNAL_DIR)) return;
  for (const name of readdirSync(JOURNAL_DIR)) {
    const pid = Number(/^journal-(\d+)\.json$/.exec(name)?.[1]);
    if (!pid || alive(pid)) continue;
    const path = join(JOURNAL_DIR, name);
    const { path: source, original, mtime } = JSON.parse(readFileSync(path, 'utf8'));
    writeKeepingTime(source, original, mtime);
    rmSync(path);
    console.error(`mutate: restored ${source}, left mutated by an interrupted run (pid ${pid})`);
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

function writeKeepingTime(path, text, mtime) {
  writeFileSync(path, text);
  utimesSync(path, new Date(mtime), new Date(mtime));
}

function writeMutant(m, original, mtime) {
  mkdirSync(JOURNAL_DIR, { recursive: true });
  writeFileSync(JOURNAL, JSON.stringify({ path: join(ROOT, m.file), original, mtime }));
  writeKeepingTime(join(ROOT, m.file), original.slice(0, m.start) + m.to + original.slice(m.end), mtime);
}

// --- running the specs ---

let child = null;

/** Runs vitest; resolves to {status: 'passed'|'failed'|'timeout', ms, tail}. */
function runSpecs(file, opts) {
  const args = opts.specs.length
    ? ['vitest', 'run', '--project', 'unit', '--bail', '1', '--reporter', 'dot', ...opts.vitest, ...opts.specs]
    : ['vitest', 'related', '--run', '--project', 'unit', '--bail', '1', '--reporter', 'dot', '--passWithNoTests', ...opts.vitest, file];
  const started = Date.now();
  return new Promise((done) => {
    let out = '';
    child = spawn(join(ROOT, 'node_modules', '.bin', args[0]), args.slice(1), { cwd: ROOT, detached: true, env: { ...process.env, CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0' } });
    const keep = (chunk) => (out = (out + chunk).slice(-4000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => killChild('SIGKILL'), opts.timeout * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      child = null;
      const status = signal === 'SIGKILL' ? 'timeout' : code === 0 ? 'passed' : 'failed';
      done({ status, ms: Date.now() - started, tail: out, noTests: /No test files found/.test(out) });
    });
  });
}

function killChild(signal) {
  if (child?.pid) {
    try {
      process.kill(-child.pid, signal); // its whole process group: vitest's workers too
    } catch {
      /* already gone */
    }
  }
}

/** The first failing test named in vitest's (uncoloured: NO_COLOR) output. */
function firstFailure(tail) {
  const m = tail.match(/FAIL\s+(?:\|?unit\|?\s+)?(\S+\.spec\.ts(?: > [^\n]*)?)/);
  return m ? m[1].trim().slice(0, 160) : '';
}

// --- main ---

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  restoreFromJournals();
  const files = sourceFiles('processors').filter((f) => !opts.files.length || opts.files.some((s) => f.includes(s)));
  if (!files.length) fail(`no source file under processors/ matches --files ${opts.files.join(',')}`);
  const mutants = files.flatMap(mutantsOf);
  if (opts.list) {
    for (const m of mutants) console.log(`${m.file}:${m.line}:${m.column}  ${m.from} -> ${m.to}  ${m.text}`);
    console.log(`${mutants.length} mutants in ${files.length} files`);
    return 0;
  }

  let current = null; // {file, original} while a mutant is on disk
  const restore = () => {
    if (!current) return;
    writeKeepingTime(join(ROOT, current.file), current.original, current.mtime);
    rmSync(JOURNAL, { force: true });
    current = null;
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      killChild('SIGKILL');
      restore();
      console.error(`\nmutate: ${signal}: source restored, stopping`);
      process.exit(130);
    });
  }
  process.on('uncaughtException', (err) => {
    killChild('SIGKILL');
    restore();
    console.error(err);
    process.exit(2);
  });

  const started = Date.now();
  console.log(`mutate: ${mutants.length} mutants in ${files.length} files; specs: ${opts.specs.length ? opts.specs.join(' ') : 'vitest related <file>'}`);
  if (opts.baseline) {
    for (const file of files) {
      const base = await runSpecs(file, opts);
      if (base.status !== 'passed') {
        console.error(base.tail);
        fail(`the specs for ${file} fail before any mutation (${base.status}); fix them first`);
      }
      console.log(`baseline ${file}: passed in ${(base.ms / 1000).toFixed(1)} s${base.noTests ? ' (no spec imports it)' : ''}`);
      if (opts.specs.length) break; // the same specs for every file
    }
  }

  const results = [];
  for (const m of mutants) {
    if (Date.now() - started > opts.budget) {
      results.push({ ...m, status: 'not tried' });
      continue;
    }
    const original = readFileSync(join(ROOT, m.file), 'utf8');
    const mtime = statSync(join(ROOT, m.file)).mtimeMs;
    current = { file: m.file, original, mtime };
    let run;
    try {
      writeMutant(m, original, mtime);
      run = await runSpecs(m.file, opts);
    } finally {
      restore();
    }
    const status = run.status === 'passed' ? 'SURVIVED' : run.status === 'timeout' ? 'killed (timeout)' : 'killed';
    const by = status === 'killed' ? firstFailure(run.tail) : '';
    results.push({ ...m, status, ms: run.ms, by, noTests: run.noTests });
    console.log(
      `${m.file}:${m.line}:${m.column}  ${m.from} -> ${m.to}  ${status}${run.noTests ? ' (no spec imports it)' : ''}  ${(run.ms / 1000).toFixed(1)} s  ${m.text}${by ? `  [${by}]` : ''}`,
    );
  }

  const count = (s) => results.filter((r) => r.status.startsWith(s)).length;
  const survivors = results.filter((r) => r.status === 'SURVIVED');
  const seconds = Math.round((Date.now() - started) / 1000);
  console.log(
    `\nmutate: ${results.length} mutants, tried ${results.length - count('not tried')}, killed ${count('killed')}, survived ${survivors.length}, not tried ${count('not tried')}; ${seconds} s`,
  );
  for (const s of survivors) console.log(`  SURVIVED ${s.file}:${s.line}:${s.column}  ${s.from} -> ${s.to}  ${s.text}`);
  if (opts.json) writeFileSync(opts.json, JSON.stringify({ argv: process.argv.slice(2), seconds, results }, null, 2));
  return survivors.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
