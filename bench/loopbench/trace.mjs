// One LoopBench trace as its generator writes it: tool calls with the results their host gave
// (raw, host-shaped), compactions, run ends, and channel messages, on one clock of event time;
// and its label — the index of the first wasted call (the first call whose outcome the agent
// already had) for a loop, none for legitimate work.
import { rng, seedOf } from './rng.mjs';
import { tokensOf } from './hosts.mjs';

/** Event time of the first event of trace 0; traces are a day apart, so none overlaps another. */
const EPOCH = Date.UTC(2026, 5, 1, 9, 0, 0);
const DAY = 86_400_000;

export class Trace {
  constructor({ family, kind, index, seed }) {
    this.id = `${family}-${String(index).padStart(3, '0')}`;
    this.family = family;
    this.kind = kind;
    this.r = rng(seedOf(`${seed}/${this.id}`));
    this.ts = EPOCH + index * DAY + this.r.int(0, 3_600_000);
    this.session = `loopbench:${this.id}`;
    this.runId = `${this.id}/run-1`;
    this.runs = 1;
    /** Index (1-based, over calls and bot messages) of the first wasted one; null: legitimate. */
    this.label = null;
    this.steps = [];
    this.count = 0;
    this.turns = 0;
  }

  /** The model thinks before its next step: 1.5–8 s of event time. */
  think(lo = 1_500, hi = 8_000) {
    this.ts += this.r.int(lo, hi);
  }

  /** The next call (or bot message) is the first wasted one. */
  wastedFromHere() {
    if (this.label === null) this.label = this.count + 1;
  }

  /**
   * One tool call that runs for `ms` and returns `outcome` ({result} or {error}, host-shaped).
   * Calls in one `turn` share a turnId and start together.
   */
  call(host, toolName, args, outcome, { ms = this.r.int(40, 900), turnId, think = true } = {}) {
    if (think && turnId === undefined) this.think();
    const step = {
      kind: 'call',
      index: ++this.count,
      host,
      toolName,
      args,
      outcome,
      ts: this.ts,
      doneTs: this.ts + ms,
      runId: this.runId,
      tokens: tokensOf(outcome) + 60,
      ...(turnId === undefined ? {} : { turnId }),
    };
    this.steps.push(step);
    if (turnId === undefined) this.ts = step.doneTs;
    return step;
  }

  /** Several calls the model asked for in one turn (run in parallel). */
  turn(calls) {
    this.think();
    const turnId = `${this.runId}/turn-${++this.turns}`;
    const steps = calls.map(([host, toolName, args, outcome]) => this.call(host, toolName, args, outcome, { turnId }));
    this.ts = Math.max(...steps.map((s) => s.doneTs));
    return steps;
  }

  compaction() {
    this.think(20_000, 60_000);
    this.steps.push({ kind: 'compaction', ts: this.ts, runId: this.runId });
  }

  /** Ends this run and starts the next one of the same session after `gapMs`. */
  nextRun(gapMs) {
    this.ts += 500;
    this.steps.push({ kind: 'run_end', ts: this.ts, runId: this.runId });
    this.ts += gapMs;
    this.runId = `${this.id}/run-${++this.runs}`;
  }

  /** A bot's message arriving at another bot (a `bot_message` fact, docs §1). */
  bot(channel, conversationId, senderId, receiverId, text, { gapMs }) {
    this.ts += gapMs;
    this.steps.push({ kind: 'bot', index: ++this.count, ts: this.ts, channel, accountId: receiverId, conversationId, senderId, receiverId, text, tokens: tokensOf(text) + 200 });
  }

  /** A person's message in the conversation (a `human_message`). */
  human(channel, conversationId, senderId, accountId, { gapMs }) {
    this.ts += gapMs;
    this.steps.push({ kind: 'human', ts: this.ts, channel, accountId, conversationId, senderId });
  }

  toJSON() {
    return { id: this.id, family: this.family, kind: this.kind, label: this.label, session: this.session, steps: this.steps };
  }
}
