// `start --demo`: the demo's traffic, made fresh for this run and fed through the real broker.
// Runs and conversations get a tag of their own (a guard that already saw the demo would
// otherwise judge it as more of the same runs) and timestamps shifted to end now; decisions
// depend only on the events and their order, so the in-memory run of the same events says
// exactly which decisions must come back.
import type { Topology } from '../../topology/topology.js';
import type { Decision } from '../../topology/topology.js';
import { InMemoryDriver } from '../../topology/testing/driver.js';
import { demoScenarios } from '../demo/traffic.js';
import { formatDecision } from '../render.js';

type Event = Record<string, unknown>;

const TAGGED = ['runId', 'sessionKey', 'toolCallId', 'conversationId', 'eventId'] as const;

export interface DemoFeed {
  readonly events: readonly Event[];
  /** Decisions the in-memory run of the same events gives, per verdict. */
  readonly expected: Readonly<Record<string, number>>;
  readonly total: number;
  /** Whether a decision answers one of these events. */
  owns(d: Decision): boolean;
}

const verdictOf = (d: Decision): string => (d.type === 'run_abort' ? 'abort' : d.decision);

export function demoFeed(topology: Topology, partitions: number, tag: string, nowMs: number): DemoFeed {
  const raw = demoScenarios().flatMap((s) => s.events);
  const shift = nowMs - Math.max(...raw.map((e) => e.ts as number));
  const events = raw.map((e) => {
    const out: Event = { ...e, ts: (e.ts as number) + shift };
    for (const k of TAGGED) if (typeof e[k] === 'string') out[k] = `${e[k]}-${tag}`;
    return out;
  });
  const driver = new InMemoryDriver(topology, partitions);
  const expected: Record<string, number> = {};
  let total = 0;
  for (const e of events) {
    const r = driver.pipe(e);
    if (!r.ok) throw new Error(`demo traffic is invalid: ${r.reason}`);
    for (const d of r.decisions) {
      expected[verdictOf(d)] = (expected[verdictOf(d)] ?? 0) + 1;
      total++;
    }
  }
  const keys = new Set(events.map((e) => (e.type === 'bot_message' ? e.conversationId : (e.runId ?? e.sessionKey)) as string));
  return { events, expected, total, owns: (d) => keys.has(d.type === 'bot_decision' ? d.conversationId : d.key) };
}

const tally = (counts: Readonly<Record<string, number>>) =>
  Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');

/** Follows the demo's decisions as they are read back; says what to print for each. */
export class DemoProgress {
  private readonly ids = new Set<string>();
  private readonly got: Record<string, number> = {};
  done = false;

  constructor(private readonly feed: DemoFeed) {}

  onDecision(d: Decision): string[] {
    if (this.done || !this.feed.owns(d) || this.ids.has(d.id)) return [];
    this.ids.add(d.id);
    const v = verdictOf(d);
    this.got[v] = (this.got[v] ?? 0) + 1;
    // Acting decisions only, and of a warning only the one the model is told.
    const quiet = v === 'allow' || v === 'deliver' || (d.type === 'tool_decision' && v === 'warn' && d.notify !== true);
    const lines = quiet ? [] : [formatDecision(d)];
    if (this.ids.size === this.feed.total) {
      this.done = true;
      const same = tally(this.got) === tally(this.feed.expected);
      lines.push(
        same
          ? `demo: all ${this.feed.total} decisions came back through Kafka (${tally(this.got)}), as the in-memory run of the same events predicts`
          : `demo: ${this.feed.total} decisions came back through Kafka (${tally(this.got)}), but the in-memory run of the same events gives ${tally(this.feed.expected)}`,
      );
    }
    return lines;
  }
}
