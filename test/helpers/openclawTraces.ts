// Seeded traces for the differential test against openclaw@2026.9.6 (test/openclawDifferential.test.ts):
// one session each, its runs' tool calls (alone or in turns), compactions and run ends, every
// call with the outcome its stub tool gives when it runs. Each family aims at one difference the
// openclaw profile covers (docs/behaviour.md §6); `mixture` throws them together.

export type Outcome = { readonly result: unknown; readonly error?: undefined } | { readonly error: string; readonly result?: undefined };

export interface TraceCall {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly args: unknown;
  readonly outcome: Outcome;
}

export type Step =
  | ({ readonly kind: 'call'; readonly run: string } & TraceCall)
  | { readonly kind: 'turn'; readonly run: string; readonly turnId: string; readonly calls: readonly TraceCall[] }
  | { readonly kind: 'compaction'; readonly run: string }
  | { readonly kind: 'end'; readonly run: string };

export interface Trace {
  readonly id: string;
  readonly family: string;
  readonly sessionKey: string;
  readonly steps: readonly Step[];
}

/** mulberry32: small, seeded, and the same on every platform. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const int = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const chance = (r: Rand, p: number): boolean => r() < p;

const text = (t: string, details: Record<string, unknown> = {}): Outcome => ({ result: { content: [{ type: 'text', text: t }], details } });
const fail = (message: string): Outcome => ({ error: message });
const hex = (r: Rand, n = 16): string => Array.from({ length: n }, () => '0123456789abcdef'[int(r, 0, 15)]).join('');

/** Builds one trace's steps, numbering calls and turns. */
class Script {
  readonly steps: Step[] = [];
  private n = 0;
  private turns = 0;
  constructor(readonly r: Rand) {}
  call(run: string, toolName: string, args: unknown, outcome: Outcome): void {
    this.steps.push({ kind: 'call', run, toolCallId: `c${++this.n}`, toolName, args, outcome });
  }
  turn(run: string, calls: ReadonlyArray<Omit<TraceCall, 'toolCallId'>>): void {
    this.steps.push({ kind: 'turn', run, turnId: `t${++this.turns}`, calls: calls.map((c) => ({ ...c, toolCallId: `c${++this.n}` })) });
  }
  compaction(run: string): void {
    this.steps.push({ kind: 'compaction', run });
  }
  end(run: string): void {
    this.steps.push({ kind: 'end', run });
  }
}

type Family = (s: Script, r: Rand) => void;

const READS = [
  ['read', { path: 'src/a.ts' }],
  ['read', { path: 'README.md' }],
  ['search', { q: 'loop guard' }],
  ['web_fetch', { url: 'https://example.com/x' }],
  ['grep', { pattern: 'TODO', path: '.' }],
] as const;

/** Noise between the calls of a loop: other tools with other results. */
function noise(s: Script, r: Rand, run: string, p: number): void {
  if (!chance(r, p)) return;
  s.call(run, pick(r, ['list', 'stat', 'env']), { n: int(r, 0, 3) }, text(`noise ${int(r, 0, 2)}`));
}

const FAMILIES: Readonly<Record<string, Family>> = {
  /** One call repeated with one result: warned at 11, blocked at 21, the global breaker at 30 (vetoes count). */
  repeat(s, r) {
    const [tool, args] = pick(r, READS);
    const n = int(r, 18, 36);
    const out = text(`same ${int(r, 0, 9)}`);
    for (let i = 0; i < n; i++) {
      s.call('r1', tool, args, out);
      noise(s, r, 'r1', 0.15);
    }
  },
  /** Blocked, then retried: each veto adds to the streak until the breaker. */
  blockedRetries(s, r) {
    const out = text('no change');
    for (let i = 0; i < int(r, 19, 22); i++) s.call('r1', 'read', { path: 'x' }, out);
    for (let i = 0; i < int(r, 8, 14); i++) {
      s.call('r1', 'read', { path: 'x' }, out);
      if (chance(r, 0.2)) s.call('r1', 'read', { path: 'y' }, text(`y${i}`));
    }
  },
  /** The same arguments with a changing outcome: only warnings, bucketed by tens. */
  changing(s, r) {
    const n = int(r, 12, 44);
    const every = int(r, 1, 3);
    for (let i = 0; i < n; i++) s.call('r1', 'search', { q: 'news' }, text(`page ${Math.floor(i / every)}`));
  },
  /** One tool cycling through argument sets that fail the same way. */
  churn(s, r) {
    const variants = int(r, 2, 4);
    const message = pick(r, ['ENOENT: no such file', 'permission denied', 'bad request']);
    const n = int(r, 10, 28);
    const block = chance(r, 0.5);
    const tool = pick(r, ['read', 'edit', 'write']);
    for (let i = 0; i < n; i++) {
      const v = block ? Math.floor(i / int(r, 3, 4)) % variants : i % variants;
      const x = r();
      const outcome = x < 0.03 ? text('ok') : x < 0.06 ? fail('other failure') : tool === 'write' && x < 0.5 ? text(`same ${i}`, { changed: false }) : fail(message);
      s.call('r1', chance(r, 0.04) ? 'list' : tool, { path: `f${v}` }, outcome);
    }
  },
  /** exec failures that differ only in times, pids, attempts and durations: one failure. */
  execIdentity(s, r) {
    const n = int(r, 20, 34);
    const base = pick(r, ['connect ECONNREFUSED 10.0.0.1:5432', 'npm ERR! missing script: build', 'error: could not lock config file']);
    const kind = int(r, 0, 6);
    const status = chance(r, 0.8) ? 'failed' : 'completed';
    const exit = pick(r, [1, 2, 127]);
    for (let i = 0; i < n; i++) {
      const when = `2026-0${int(r, 1, 9)}-1${int(r, 0, 9)}${pick(r, ['T', ' ', 't'])}1${int(r, 0, 9)}:${int(r, 10, 59)}:${int(r, 10, 59)}${pick(r, ['', '.123', 'Z', '+02:00', '.1234567'])}`;
      const volatile = [
        `at ${when}`,
        `attempt ${i + 1}`,
        `Retry #${i}`,
        `pid ${int(r, 100, 99999)}`,
        `took ${int(r, 1, 900)}${pick(r, ['ms', ' s', 'seconds', 'us', ' minutes'])}`,
        `${int(r, 1, 9)}:${int(r, 10, 59)}:${int(r, 10, 59)}`,
        `attempts ${i}`,
      ][chance(r, 0.98) ? kind : int(r, 0, 6)];
      const command = chance(r, 0.7) ? `deploy --step ${i}` : 'deploy';
      const exitCode = chance(r, 0.01) ? 0 : exit;
      const output = chance(r, 0.01) ? `(Command exited with code ${exitCode})` : `${base} ${volatile}`;
      s.call('r1', chance(r, 0.01) ? 'read' : pick(r, ['exec', 'exec', 'bash']), { command }, text(output, { status, exitCode, aggregated: output, timedOut: chance(r, 0.01) }));
    }
  },
  /** `write` that changes nothing hashes as one fixed outcome, however its details differ. */
  writeUnchanged(s, r) {
    const n = int(r, 12, 26);
    const paths = int(r, 1, 3);
    for (let i = 0; i < n; i++) {
      const changed = chance(r, 0.08);
      s.call('r1', 'write', { path: `p${i % paths}`, content: 'x' }, text(`wrote ${i}`, { changed: !changed ? false : true, bytes: int(r, 1, 999) }));
    }
  },
  /** External-content wrappers with a fresh nonce each time: the same content. */
  nonces(s, r) {
    const n = int(r, 20, 28);
    const body = `Source: https://example.com\n---\nHello ${int(r, 0, 9)}`;
    const form = int(r, 0, 2);
    for (let i = 0; i < n; i++) {
      const id = hex(r);
      const odd = r();
      // Now and then a wrapper that is not zeroed (ids that differ, uppercase hex) or a body that changed.
      const close = odd < 0.02 ? hex(r) : id;
      const open = odd > 0.98 ? id.toUpperCase() : id;
      const changed = odd > 0.02 && odd < 0.04 ? ` (edit ${i})` : '';
      const wrapped = `<<<EXTERNAL_UNTRUSTED_CONTENT id="${open}">>>\n${body}${changed}\n<<<END_EXTERNAL_UNTRUSTED_CONTENT id="${close}">>>`;
      const outcome =
        form === 0
          ? text(wrapped)
          : form === 1
            ? text(JSON.stringify({ page: wrapped }), { fetched: true })
            : text('fetched', { [`<<<EXTERNAL_UNTRUSTED_CONTENT id="${id}">>>k<<<END_EXTERNAL_UNTRUSTED_CONTENT id="${id}">>>`]: wrapped });
      s.call('r1', 'web_fetch', { url: 'https://example.com' }, outcome);
    }
  },
  /** Messaging sends whose ids and times change with every delivery. */
  sends(s, r) {
    const n = int(r, 18, 24);
    const tool = pick(r, ['message', 'conversations_send', 'sessions_send', 'conversations_turn']);
    for (let i = 0; i < n; i++) {
      const args = tool === 'message' ? { action: pick(r, ['send', 'reply', 'send']), to: 'chan', text: 'hi' } : { to: 'peer', text: 'hi' };
      const details = { ok: true, messageId: `m${i}`, ts: 1000 + i, result: { id: `x${i}`, text: 'hi', direction: 'out' }, receipt: { sentAt: i } };
      s.call('r1', tool, args, { result: { content: [{ type: 'text', text: `sent ${i}` }], details } });
    }
  },
  /** Runs of one session interleaved: 30 records shared by the session, each run detecting on its own. */
  interleaved(s, r) {
    const runs = ['r1', 'r2', int(r, 0, 1) === 0 ? 'r3' : 'r2'];
    const n = int(r, 30, 60);
    let live = [...new Set(runs)];
    for (let i = 0; i < n; i++) {
      const run = pick(r, live);
      s.call(run, 'read', { path: run === 'r1' ? 'a' : 'b' }, text(`same ${run}`));
      if (chance(r, 0.03) && live.length > 1) {
        s.end(run);
        live = live.filter((x) => x !== run);
      }
    }
  },
  /** Warnings past 10, 20, 30 and 40: the model hears each ten once. */
  buckets(s, r) {
    const n = int(r, 20, 45);
    const poll = chance(r, 0.5);
    for (let i = 0; i < n; i++) {
      if (poll) s.call('r1', 'process', { action: 'poll', sessionId: 'p1' }, text(`out ${i % 3 === 0 ? i : 0}`, { status: 'running', aggregated: `${i % 2}` }));
      else s.call('r1', 'read', { path: 'log' }, text(`line ${i}`));
    }
  },
  /** Tool names in other cases, and `bash` for `exec`: one tool. */
  names(s, r) {
    const n = int(r, 20, 28);
    const out = text('same', { status: 'completed', exitCode: 0, aggregated: 'ok' });
    for (let i = 0; i < n; i++) s.call('r1', pick(r, ['Bash', 'bash', 'EXEC', 'exec', ' Exec ', 'BASH']), { command: 'ls' }, out);
  },
  /** A missing tool in several wordings, backquotes included; vetoes end the streak. */
  unknown(s, r) {
    const name = pick(r, ['web_search', 'foo.bar', 'x-tool']);
    const wordings = [
      `Unknown tool: ${name}`,
      `unknown tool ${name}`,
      `Tool '${name}' not found`,
      `tool "${name}" is not available`,
      `Unknown tool: \`${name}\``,
      `unknown tool:: ${name}`,
      `Tool \`${name}\` not found`,
    ];
    const wording = pick(r, wordings);
    const n = int(r, 11, 22);
    for (let i = 0; i < n; i++) s.call('r1', 'tool_call', { id: name }, fail(chance(r, 0.1) ? pick(r, wordings) : wording));
  },
  /** Turns of calls admitted together: projected vetoes, a blocked turn, and a second one ends the run. */
  turns(s, r) {
    const out = text('same');
    const k = int(r, 0, 2);
    for (let i = 0; i < int(r, 6, 16); i++) s.call('r1', 'read', { path: 'x' }, out);
    for (let t = 0; t < int(r, 4, 12); t++) {
      const size = int(r, 1, 4);
      const calls = Array.from({ length: size }, () =>
        chance(r, 0.7)
          ? { toolName: 'read', args: { path: 'x' }, outcome: out }
          : { toolName: pick(r, ['read', 'list']), args: { path: `y${k}` }, outcome: text(`y ${int(r, 0, 1)}`) },
      );
      s.turn('r1', calls);
    }
  },
  /** Two calls alternating with stable results: warned at 10, blocked at 20, and on with vetoes. */
  pingPong(s, r) {
    const n = int(r, 16, 30);
    const stable = chance(r, 0.8);
    const sameTool = chance(r, 0.4);
    for (let i = 0; i < n; i++) {
      const a = i % 2 === 0;
      s.call('r1', sameTool ? 'read' : a ? 'read' : 'list', { path: a ? 'a' : 'b' }, text(stable ? (a ? 'A' : 'B') : `${a ? 'A' : 'B'}${int(r, 0, 1)}`));
    }
  },
  /** Known polls without progress: warned at 10, blocked at 20. */
  polls(s, r) {
    const n = int(r, 12, 26);
    const kind = int(r, 0, 2);
    for (let i = 0; i < n; i++) {
      const progress = chance(r, 0.05) ? `${i}` : '';
      if (kind === 0) s.call('r1', 'process', { action: 'poll', sessionId: 's1' }, text('waiting', { status: 'running', aggregated: `partial${progress}` }));
      else if (kind === 1) s.call('r1', 'process', { action: 'log', sessionId: 's1' }, text('log', { status: 'running', totalLines: 3, totalChars: 40 }));
      else s.call('r1', 'command_status', { id: 'job' }, text(`pending${progress}`));
    }
  },
  /** After a compaction, the same call with the same outcome three times aborts the run. */
  compactions(s, r) {
    const out = text('stuck');
    for (let i = 0; i < int(r, 2, 8); i++) s.call('r1', 'read', { path: 'z' }, text(`pre ${i}`));
    s.compaction('r1');
    const n = int(r, 3, 6);
    const exec = chance(r, 0.3);
    for (let i = 0; i < n; i++) {
      if (exec) {
        // Failures that differ in their time only: one failure to the rolling detectors, three outcomes to the guard.
        const output = `down at 10:00:0${i % 2 === 0 || chance(r, 0.5) ? 1 : i}`;
        s.call('r1', 'exec', { command: 'up' }, text(output, { status: 'failed', exitCode: 1, aggregated: output }));
      } else if (chance(r, 0.12)) s.call('r1', 'read', { path: 'z' }, text(`post ${i}`));
      else s.call('r1', 'read', { path: 'z' }, out);
      if (chance(r, 0.1)) s.compaction('r1');
    }
  },
  /** Everything at once: several runs, turns, compactions, and a small pool of calls that repeat. */
  mixture(s, r) {
    const pool = [
      ['read', { path: 'a' }, () => text('A')],
      ['read', { path: 'b' }, () => fail('ENOENT')],
      ['exec', { command: 'make' }, () => text('boom', { status: 'failed', exitCode: 2, aggregated: `boom at 12:0${int(r, 0, 9)}:00` })],
      ['write', { path: 'w' }, () => text('w', { changed: false })],
      ['web_fetch', { url: 'u' }, () => text(`<<<EXTERNAL_UNTRUSTED_CONTENT id="${hex(r)}">>>x<<<END_EXTERNAL_UNTRUSTED_CONTENT id="0000000000000000">>>`)],
      ['Bash', { command: 'make' }, () => text('boom', { status: 'failed', exitCode: 2, aggregated: 'boom' })],
      ['tool_call', { id: 'gone' }, () => fail('Unknown tool: gone')],
      ['process', { action: 'poll', sessionId: 'q' }, () => text('q', { status: 'running' })],
    ] as const;
    const runs = chance(r, 0.5) ? ['r1'] : ['r1', 'r2'];
    const n = int(r, 20, 50);
    const hot = int(r, 0, pool.length - 1);
    for (let i = 0; i < n; i++) {
      const run = pick(r, runs);
      const one = () => {
        const [toolName, args, outcome] = chance(r, 0.6) ? pool[hot]! : pick(r, pool);
        return { toolName, args, outcome: outcome() };
      };
      const x = r();
      if (x < 0.15) s.turn(run, Array.from({ length: int(r, 1, 3) }, one));
      else if (x < 0.18) s.compaction(run);
      else {
        const c = one();
        s.call(run, c.toolName, c.args, c.outcome);
      }
    }
  },
};

export const FAMILY_NAMES = Object.keys(FAMILIES);

/** `perFamily` traces of every family, from `seed`. */
export function generateTraces(seed: number, perFamily: number): Trace[] {
  const r = rng(seed);
  const out: Trace[] = [];
  for (const family of FAMILY_NAMES) {
    for (let i = 0; i < perFamily; i++) {
      const s = new Script(rng(Math.floor(r() * 2 ** 32)));
      FAMILIES[family]!(s, s.r);
      out.push({ id: `${family}-${i}`, family, sessionKey: `s-${family}-${i}`, steps: s.steps });
    }
  }
  return out;
}
