// Builders for tool events in specs: one run, timestamps that advance by one second per event.
// Specs write events as a runner sends them (raw args and results); `toolLoopSpec` parses and
// hashes each one on the way in, exactly as the topology does.
import type { Process } from '../../kernel/process.js';
import type { ToolLoopConfig } from '../config.js';
import { parseOptionsFor, parseToolEvent, toolEventParser, type ToolEvent } from '../events.js';
import { toolLoopProcess, toolLoopSessionProcess, type ToolLoopProcess, type ToolLoopSessionProcess } from '../index.js';
import type { Parsed } from '../../kernel/contract.js';

/** An event as a runner sends it. */
export type RawToolEvent = { readonly type: string; readonly ts: number } & Readonly<Record<string, unknown>>;

export type RawToolLoopProcess = ToolLoopProcess extends Process<infer S, ToolEvent, infer V, infer D> ? Process<S, RawToolEvent, V, D> : never;
export type RawProcess<P> = P extends Process<infer S, ToolEvent, infer V, infer D> ? Process<S, RawToolEvent, V, D> : never;

/** The tool-loop processor behind the parser: what a spec feeds it is validated and hashed first. */
export function acceptingRaw<P extends ToolLoopProcess | ToolLoopSessionProcess>(p: P, parser: (input: unknown) => Parsed<ToolEvent> = parseToolEvent): RawProcess<P> {
  const parsed = new WeakMap<object, ToolEvent>();
  const parse = (raw: RawToolEvent): ToolEvent => {
    let e = parsed.get(raw);
    if (e === undefined) {
      const r = parser(raw);
      if (!r.ok) throw new Error(`invalid event in spec: ${r.reason}`);
      parsed.set(raw, (e = r.value));
    }
    return e;
  };
  const q = p as Process<unknown, ToolEvent, unknown, unknown>;
  return {
    ...q,
    keyOf: (e: RawToolEvent) => q.keyOf(parse(e)),
    decide: (s: unknown, e: RawToolEvent) => q.decide(s, parse(e)),
    evolve: (s: unknown, e: RawToolEvent, v: unknown) => q.evolve(s, parse(e), v),
    react: (e: RawToolEvent, v: unknown) => q.react(parse(e), v),
    drops: (s: unknown, e: RawToolEvent, v: unknown) => q.drops(s, parse(e), v),
    trips: undefined,
  } as unknown as RawProcess<P>;
}

/** The parser the topology uses for `config`. */
const parserFor = (config?: ToolLoopConfig) => (config === undefined ? parseToolEvent : toolEventParser(parseOptionsFor(config)));

export const toolLoopSpec = (config?: ToolLoopConfig): RawToolLoopProcess => acceptingRaw(toolLoopProcess(config), parserFor(config));

/** The processor of tool events keyed by session (`keyToolEventsBy: session`), behind the parser. */
export const toolLoopSessionSpec = (config: ToolLoopConfig): RawProcess<ToolLoopSessionProcess> => acceptingRaw(toolLoopSessionProcess(config), parserFor(config));

export function runEvents(runId = 'run-1', start = 1_700_000_000_000) {
  let ts = start;
  let n = 0;
  const next = () => (ts += 1000);
  return {
    call: (toolName: string, args: unknown, extra: Record<string, unknown> = {}): RawToolEvent => ({
      type: 'tool_call',
      ts: next(),
      sessionKey: 's',
      runId,
      toolName,
      args,
      toolCallId: `c${++n}`,
      ...extra,
    }),
    outcome: (toolName: string, args: unknown, result: unknown, extra: Record<string, unknown> = {}): RawToolEvent => ({
      type: 'tool_outcome',
      ts: next(),
      sessionKey: 's',
      runId,
      toolName,
      args,
      result,
      ...extra,
    }),
    error: (toolName: string, args: unknown, error: unknown): RawToolEvent => ({ type: 'tool_outcome', ts: next(), sessionKey: 's', runId, toolName, args, error }),
    compaction: (): RawToolEvent => ({ type: 'compaction', ts: next(), sessionKey: 's', runId }),
    runEnd: (): RawToolEvent => ({ type: 'run_end', ts: next(), sessionKey: 's', runId }),
    /** A call followed by its outcome, `times` times. */
    repeat(times: number, toolName: string, args: unknown, result: (i: number) => unknown): RawToolEvent[] {
      const out: RawToolEvent[] = [];
      for (let i = 0; i < times; i++) out.push(this.call(toolName, args), this.outcome(toolName, args, result(i)));
      return out;
    },
    advance: (ms: number) => {
      ts += ms;
    },
  };
}
