// The one reading of a decision for people: what was decided, about what, and why. `tail`
// prints it as a line, `demo` groups it into a story, the console shows it as a row.
import type { Evidence } from '../processors/kernel/evidence.js';
import type { Decision } from '../topology/topology.js';

export interface DecisionSummary {
  readonly unit: 'call' | 'outcome' | 'msg';
  /** allow / warn / block / abort run / deliver / suppress. */
  readonly verdict: string;
  /** Tool name, or the two bots of a pair. */
  readonly subject: string;
  readonly detail: string;
  readonly count: number | null;
  /** Whether the runner tells the model now. */
  readonly notify: boolean;
  readonly message: string;
  /** Decided in shadow mode: the client obeyed it as allow / deliver. */
  readonly shadow: boolean;
  /** What the count is made of, in words; empty when the decision carries none. */
  readonly evidence: string;
}

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19) + 'Z';

/** `since 09:00:01Z, 3 calls (c1, c2, c3)` or `since 09:00:01Z, 21 messages from A, B`. */
export function formatEvidence(e: Evidence | null | undefined): string {
  if (e === null || e === undefined) return '';
  const parts = [`since ${clock(e.since)}`];
  if (e.count !== null && e.count !== undefined) parts.push(`${e.count} message${e.count === 1 ? '' : 's'}${e.senders?.length ? ` from ${e.senders.join(', ')}` : ''}`);
  const ids = e.toolCallIds ?? [];
  if (ids.length > 3) parts.push(`${ids.length} calls ${ids[0]} … ${ids.at(-1)}`);
  else if (ids.length > 0) parts.push(`calls ${ids.join(', ')}`);
  return parts.join(', ');
}

export function summarise(d: Decision): DecisionSummary {
  const acted = acting(d);
  const shadow = d.shadow === true;
  return {
    ...acted,
    verdict: shadow && acted.verdict !== 'allow' && acted.verdict !== 'deliver' ? `would ${acted.verdict}` : acted.verdict,
    shadow,
    evidence: formatEvidence(d.evidence),
  };
}

function acting(d: Decision): Omit<DecisionSummary, 'shadow' | 'evidence'> {
  switch (d.type) {
    case 'tool_decision':
      return { unit: 'call', verdict: d.decision, subject: d.toolName, detail: d.detector ?? '', count: d.count, notify: d.notify === true, message: d.message ?? '' };
    case 'run_abort':
      return { unit: 'outcome', verdict: 'abort run', subject: d.toolName, detail: d.detector, count: d.count, notify: true, message: d.message };
    case 'bot_decision':
      return {
        unit: 'msg',
        verdict: d.decision,
        subject: [d.senderId, d.receiverId].sort().join(' ↔ '),
        count: null,
        notify: false,
        message: '',
        detail: d.decision === 'suppress' && d.cooldownUntil !== null ? `${d.reason}, cooldown until ${clock(d.cooldownUntil)}` : '',
      };
    default: {
      const unreachable: never = d;
      return unreachable;
    }
  }
}

/** One line per decision, for `tail`. */
export function formatDecision(d: Decision): string {
  const s = summarise(d);
  const where = d.type === 'bot_decision' ? `${d.channel} ${d.conversationId}` : `run=${d.key}`;
  const count = s.count === null ? '' : ` count=${s.count}`;
  const quiet = d.type === 'tool_decision' && d.decision === 'warn' && !s.notify ? ' (quiet)' : '';
  const shadow = s.verdict.startsWith('would ') ? ` [shadow: obeyed as ${s.unit === 'msg' ? 'deliver' : 'allow'}]` : '';
  const evidence = s.evidence ? ` (${s.evidence})` : '';
  const hop = d.type === 'bot_decision' && d.replyHopLimit !== null ? ` replyHopLimit=${d.replyHopLimit}` : '';
  return `${new Date(d.ts).toISOString()} ${s.verdict.toUpperCase().padEnd(8)} ${where} ${s.subject}${s.detail ? ` ${s.detail}` : ''}${count}${quiet}${evidence}${hop}${shadow}`;
}
