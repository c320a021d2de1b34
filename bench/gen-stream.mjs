#!/usr/bin/env node
// Standard benchmark traffic: deterministic synthetic agent runs as JSON-lines tool events
// (docs/behaviour.md §1), written to stdout. Every recorded number in bench/README.md was
// measured on this stream, so its bytes are fixed: the same options must always give the
// same output, byte for byte (bench/gen-stream.spec.ts holds it to the SHA-256 digests of the
// reference stream).
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';

const HELP = `usage: node bench/gen-stream.mjs [options] > stream.jsonl

Writes one tool_call and one tool_outcome per call, for every run, round-robin: call 1 of
every run, then call 2 of every run, ... Each run reads distinct files, runs a test whose
output changes, polls a process that makes progress and writes files; every 4th run
(run 0, 4, 8, ...) re-reads one file with an identical result from its 11th call on.

options:
  --runs N           runs, interleaved (default 2000)
  --calls N          calls per run (default 50); events = 2 x runs x calls
  --args-bytes N     approximate size of each call's args (default 1000, at least 60)
  --result-bytes N   approximate size of each result (default 4000)
  --hashed           send argsHash/resultHash instead of args/result
  -h, --help         show this text

  node bench/gen-stream.mjs --runs 2000 --calls 50 > raw.jsonl             # 200k events, ~540 MB
  node bench/gen-stream.mjs --runs 2000 --calls 50 --hashed > hashed.jsonl  # ~53 MB`;

const OPTIONS = {
  runs: { type: 'string', default: '2000' },
  calls: { type: 'string', default: '50' },
  'args-bytes': { type: 'string', default: '1000' },
  'result-bytes': { type: 'string', default: '4000' },
  hashed: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
};

// The padding of args is `args-bytes - 60` characters, so the fixed fields fit in the budget.
const MIN_ARGS_BYTES = 60;
const FIRST_TS = 1_700_000_000_000;
const LINES_PER_WRITE = 2000;

class UsageError extends Error {}

function wholeNumber(name, text, min) {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`--${name} must be a whole number of at least ${min} (got ${JSON.stringify(text)})`);
  return n;
}

function optionsFrom(argv) {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (e) {
    throw new UsageError(e.message);
  }
  if (values.help) return { help: true };
  return {
    runs: wholeNumber('runs', values.runs, 0),
    calls: wholeNumber('calls', values.calls, 0),
    argsBytes: wholeNumber('args-bytes', values['args-bytes'], MIN_ARGS_BYTES),
    resultBytes: wholeNumber('result-bytes', values['result-bytes'], 0),
    hashed: values.hashed,
  };
}

// A linear congruential generator, seeded once per stream. The product exceeds 2^53, so the
// double loses low bits before the mask: that is the reference stream's sequence, kept as is.
function randomSource(seed = 42) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

/** `n` characters of `tag` words separated by spaces. */
const filler = (n, tag) => `${tag} `.repeat(Math.ceil(n / (tag.length + 1))).slice(0, n);

const text = (t) => [{ type: 'text', text: t }];

// What call `call` of run `run` does. Key order is part of the output: keep it.
const TOOLS = {
  loop: (run, call, o) => ({
    toolName: 'read',
    args: { path: `/repo/src/stuck-${run}.ts`, note: filler(o.argsBytes - 60, 'x') },
    result: { content: text(filler(o.resultBytes, 'same')), details: { ok: true } },
  }),
  read: (run, call, o) => ({
    toolName: 'read',
    args: { path: `/repo/src/f${run}-${call}.ts`, note: filler(o.argsBytes - 60, 'r') },
    result: { content: text(filler(o.resultBytes, `file${call}`)), details: { ok: true, bytes: o.resultBytes } },
  }),
  exec: (run, call, o, random) => ({
    toolName: 'exec',
    args: { command: `npm test -- --shard ${call % 3}`, env: filler(o.argsBytes - 60, 'e') },
    result: {
      content: text('done'),
      details: {
        status: 'completed',
        exitCode: call % 2,
        durationMs: Math.floor(random() * 9000),
        pid: 1000 + call,
        cwd: '/repo',
        aggregated: filler(o.resultBytes, `out${call}`),
      },
    },
  }),
  poll: (run, call, o) => ({
    toolName: 'process',
    args: { action: 'poll', sessionId: `p${run}` },
    result: { content: text(`line ${call}`), details: { status: 'running', aggregated: filler(o.resultBytes, `log${call}`) } },
  }),
  write: (run, call, o) => ({
    toolName: 'write',
    args: { path: `/repo/out/${run}-${call}.md`, content: filler(o.argsBytes - 60, 'w') },
    result: { content: text('written'), details: { ok: true } },
  }),
};

const CYCLE = ['read', 'exec', 'poll', 'read', 'write'];
const kindOf = (run, call) => (run % 4 === 0 && call >= 10 ? 'loop' : CYCLE[call % 5]);

// Stand-in hashes: SHA-256 of JSON.stringify, not loopguard's canonical hashes (equal content
// still gives equal hashes, which is all detection compares).
const sha256 = (s) => createHash('sha256').update(s).digest('hex');

function payloadOf(tool, hashed) {
  if (!hashed) return { args: { args: tool.args }, result: { result: tool.result } };
  return {
    args: { argsHash: `${tool.toolName}:${sha256(JSON.stringify(tool.args))}` },
    result: { resultHash: sha256(JSON.stringify(tool.result)) },
  };
}

/** The stream, one JSON line at a time, in output order. */
function* streamLines(o) {
  const random = randomSource();
  let ts = FIRST_TS;
  for (let call = 0; call < o.calls; call++) {
    for (let run = 0; run < o.runs; run++) {
      const tool = TOOLS[kindOf(run, call)](run, call, o, random);
      const who = { sessionKey: `s${run}`, runId: `run-${run}`, agentId: run % 7 === 0 ? 'safe-runner' : 'main', toolCallId: `r${run}-c${call}`, toolName: tool.toolName };
      const p = payloadOf(tool, o.hashed);
      yield JSON.stringify({ type: 'tool_call', ts: ts++, ...who, ...p.args });
      yield JSON.stringify({ type: 'tool_outcome', ts: ts++, ...who, ...p.args, ...p.result });
    }
  }
}

async function write(out, lines) {
  let batch = [];
  const flush = async () => {
    if (!out.write(batch.join('\n') + '\n')) await new Promise((resolve) => out.once('drain', resolve));
    batch = [];
  };
  for (const line of lines) {
    batch.push(line);
    if (batch.length === LINES_PER_WRITE) await flush();
  }
  if (batch.length > 0) await flush();
}

async function main(argv) {
  const o = optionsFrom(argv);
  if (o.help) return void process.stdout.write(HELP + '\n');
  // A reader that stops early (`| head`) is not an error.
  process.stdout.on('error', (e) => process.exit(e.code === 'EPIPE' ? 0 : 1));
  await write(process.stdout, streamLines(o));
}

main(process.argv.slice(2)).catch((e) => {
  if (!(e instanceof UsageError)) throw e;
  process.stderr.write(`loopguard: gen-stream: ${e.message} (see --help)\n`);
  process.exit(2);
});
