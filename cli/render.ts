// The one reading of a decision for people: what was decided, about what, and why. `tail`
// prints it as a line, `demo` groups it into a story, the console shows it as a row.
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
}

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19) + 'Z';

export function summarise(d: Decision): DecisionSummary {
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
  return `${new Date(d.ts).toISOString()} ${s.verdict.toUpperCase().padEnd(8)} ${where} ${s.subject}${s.detail ? ` ${s.detail}` : ''}${count}${quiet}`;
}
