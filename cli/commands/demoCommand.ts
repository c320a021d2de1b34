// `loopguard demo`: bundled traffic through the real topology in memory, and a readable
// account of what loopguard decided and why. No services needed.
import type { Command } from 'commander';
import { buildTopology } from '../../topology/build.js';
import { configFrom } from '../../topology/config.js';
import type { Decision } from '../../topology/topology.js';
import { summarise, type DecisionSummary } from '../render.js';
import { InMemoryDriver } from '../../topology/testing/driver.js';
import { demoConfig, demoScenarios } from '../demo/traffic.js';
import type { Context } from '../context.js';

const VERDICT_WIDTH = 15;

type Row = DecisionSummary & { readonly n: number };

const row = (d: Decision, n: number): Row => ({ ...summarise(d), n });

/** A person writing gets no decision; the story still shows it, since it ends bot cooldowns. */
const humanRow = (e: Record<string, unknown>, n: number): Row => ({
  unit: 'msg',
  verdict: 'person',
  subject: String(e.senderId),
  detail: 'writes in the conversation (no decision)',
  count: null,
  notify: false,
  message: '',
  shadow: false,
  evidence: '',
  n,
});

/** Collapses runs of the same verdict ("calls 1–10 allow") so the story stays readable. */
function collapse(rows: Row[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < rows.length;) {
    const first = rows[i]!;
    let j = i;
    const sameGroup = (r: Row) => r.verdict === first.verdict && r.detail === first.detail && r.unit === first.unit && !r.message.length === !first.message.length;
    while (j + 1 < rows.length && sameGroup(rows[j + 1]!) && (!rows[j + 1]!.notify || first.verdict === 'block')) j++;
    const last = rows[j]!;
    const where =
      first.verdict === 'person'
        ? `after msg ${first.n}`
        : first.unit === 'outcome'
          ? 'after the outcome'
          : j > i
            ? `${first.unit}s ${first.n}–${last.n}`
            : `${first.unit} ${first.n}`;
    const subjects = new Set(rows.slice(i, j + 1).map((r) => r.subject));
    const count = first.count === null ? '' : first.count !== last.count ? `count ${first.count}–${last.count}` : `count ${first.count}`;
    const quiet = first.shadow ? '' : first.verdict !== 'warn' ? '' : !first.notify ? ' (already notified)' : j > i ? ' (the model is told at the first; the rest stay quiet)' : '';
    out.push(
      `  ${where.padEnd(18)} ${[...subjects].join(' / ').padEnd(36)} ${first.verdict.toUpperCase().padEnd(VERDICT_WIDTH)} ${[first.detail, count].filter(Boolean).join(', ')}${quiet}`,
    );
    if (first.notify && first.message) out.push(`  ${''.padEnd(18)} “${first.message}”`);
    if (first.evidence && first.verdict !== 'warn') out.push(`  ${''.padEnd(18)} evidence: ${first.evidence}`);
    i = j + 1;
  }
  return out;
}

export function demoReport(): { text: string; decisions: Decision[] } {
  const driver = new InMemoryDriver(buildTopology(configFrom(demoConfig)), 3);
  const lines = ['loopguard demo: bundled agent and bot traffic through the real topology, in memory.', ''];
  const all: Decision[] = [];
  const totals = new Map<string, number>();
  for (const s of demoScenarios()) {
    const rows: Row[] = [];
    let calls = 0;
    let msgs = 0;
    for (const e of s.events) {
      const r = driver.pipe(e);
      if (!r.ok) throw new Error(`demo traffic is invalid: ${r.reason}`);
      if (e.type === 'human_message') rows.push(humanRow(e, msgs));
      for (const d of r.decisions) {
        all.push(d);
        const n = d.type === 'bot_decision' ? ++msgs : d.type === 'tool_decision' ? ++calls : calls;
        rows.push(row(d, n));
        const k = d.type === 'tool_decision' || d.type === 'bot_decision' ? String(d.decision) : d.type;
        totals.set(k, (totals.get(k) ?? 0) + 1);
      }
    }
    lines.push(`▸ ${s.title}`, ...collapse(rows), '');
  }
  lines.push(`${all.length} decisions: ${[...totals].map(([k, v]) => `${v} ${k}`).join(', ')}.`);
  lines.push('Replay your own traffic: npx loopguard replay --config gateway.json5 events.jsonl');
  return { text: lines.join('\n'), decisions: all };
}

export function registerDemo(program: Command, _ctx: Context): void {
  program
    .command('demo')
    .description(
      'Run bundled example traffic (stuck agent, progressing poll, ping-pong, compaction loop, escalation, an agent in shadow mode, a run that hits a budget, bot storm, normal bot exchange, slow bot loop ended by a person) through the starter config and show what loopguard decides and why. No services needed.',
    )
    .option('--json', 'print the decisions as JSON lines instead of the table', false)
    .option('--events', "print the demo's events as JSON lines instead (input for `produce` or `replay`)", false)
    .action((opts: { json: boolean; events: boolean }) => {
      if (opts.events) {
        process.stdout.write(
          demoScenarios()
            .flatMap((s) => s.events)
            .map((e) => JSON.stringify(e))
            .join('\n') + '\n',
        );
        return;
      }
      const { text, decisions } = demoReport();
      process.stdout.write(opts.json ? decisions.map((d) => JSON.stringify(d)).join('\n') + '\n' : text + '\n');
    });
}
