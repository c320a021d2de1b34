// The agent-runner client: call `beforeToolCall` before running a tool and obey the answer,
// `afterToolCall` with its outcome, `compacted` after a compaction retry, `runEnded` at the end.
// Arguments and results are hashed here by default (the processor's own hashing library), so
// raw tool data never leaves the runner unless `sendRaw` is set. A run in shadow mode is
// always allowed; what enforce mode would have done comes back as `wouldHave`.
import { randomUUID } from 'node:crypto';
import { toolEventCodec } from '../schemas/codecs.js';
import { avroBody } from '../schemas/registry.js';
import { runKeyOf, sessionKeyOf } from '../processors/toolLoop/events.js';
import { actionOf, earlyIdentity, earlyProgressHash, hashOutcome, keyedArgsHash, openclawOutcome } from '../processors/toolLoop/hashing.js';
import type { LoopKey } from '../processors/toolLoop/policy.js';
import { Connection, type ClientOptions, type Decision, type NoAnswer } from './connection.js';
import { hashedTransientFlag, isHostVeto } from './outcomes.js';
import { turnVerdicts } from './turns.js';
import { abortedVerdict, abortNoticeOf, toolFailureVerdict, toolVerdictOf, type RunAbortNotice, type ToolVerdict, type ToolWouldHave } from './verdicts.js';

export type { RunAbortNotice, ToolVerdict, ToolWouldHave } from './verdicts.js';
export { toolFailureVerdict } from './verdicts.js';

export interface RunRef {
  readonly sessionKey: string;
  readonly runId?: string;
  readonly agentId?: string;
}

export interface ToolCallInput extends RunRef {
  readonly toolName: string;
  readonly args: unknown;
  /** Generated when absent; pass the runner's own id to correlate logs. */
  readonly toolCallId?: string;
  /** The model turn that asked for this call: calls one turn asked for together share it. */
  readonly turnId?: string;
  /**
   * Call identity (docs/behaviour.md §7.1): the argument fields that make two calls of this tool
   * the same call, or false (the call is exempt). Wins over the runner's `loopKeys` and the
   * processor's config. Pass the same on `afterToolCall`.
   */
  readonly loopKey?: LoopKey;
}

export interface RunnerOptions extends ClientOptions {
  /** Send raw args and results instead of their hashes. Default false. */
  readonly sendRaw?: boolean;
  /**
   * Loopguard ended a run (a compaction loop, §2.6, or escalation after repeated blocks, §4.2,
   * which arrives right after the block that escalated): stop the run. Called once per run;
   * from then on `abortOf(run)` returns it and every call of the run is blocked locally.
   */
  readonly onAbort?: (abort: RunAbortNotice) => void;
  /** A run in shadow mode would have been ended: report it; the run goes on. */
  readonly onWouldAbort?: (abort: RunAbortNotice) => void;
  /**
   * How tool events are keyed: as the processor's `loopguard.keyToolEventsBy` says, per run
   * (default) or per session. Events keyed otherwise reach a partition that holds no state for them.
   */
  readonly keyBy?: 'run' | 'session';
  /**
   * The rule set the runs follow, when it needs facts only the runner can work out from the raw
   * values it hashes: `openclaw` (docs/behaviour.md §6), hashed outcomes carry the profile's view
   * of them and `beforeToolCalls` applies the turn rule (§6.4: a turn with a blocked call runs
   * none); `early` (§7), calls carry their identity and outcomes their progress hash (identical
   * calls of one turn count once in the processor: no turn rule in the runner).
   */
  readonly profile?: 'openclaw' | 'early';
  /**
   * Call identity by tool name (§7.1): the argument fields that make two calls the same, or false.
   * A runner that hashes arguments must know them itself: the processor's `loopKey` config cannot
   * apply to arguments it never sees. A call's own `loopKey` wins.
   */
  readonly loopKeys?: Readonly<Record<string, LoopKey>>;
}

/** The model turn a batch of calls belongs to. */
export interface TurnOptions {
  /** Shared by every call of the turn, unique within the run. Default: a new id. */
  readonly turnId?: string;
}

/** What a shadow run's call would have got in enforce mode: what the framework adapters report. */
export interface WouldHaveReport {
  readonly run: RunRef;
  readonly toolName: string;
  readonly toolCallId: string;
  readonly wouldHave: ToolWouldHave;
}

export interface ToolOutcome {
  readonly result?: unknown;
  readonly error?: unknown;
  /**
   * A transient failure (rate limit, timeout, 5xx: not evidence of a loop, §4.4) — true — or
   * certainly not one — false. Absent: judged from the error by loopguard's rules.
   */
  readonly transient?: boolean;
}

/** A call's arguments as its events carry them. */
interface HashedArgs {
  readonly args?: unknown;
  readonly argsHash?: string;
  readonly action?: string | null;
  readonly loopKey?: LoopKey;
  readonly identityHash?: string;
}

export class LoopguardRunner {
  private readonly aborted = new Map<string, RunAbortNotice>();
  /** The hashed arguments of calls awaiting their outcome, so arguments are hashed once per call. */
  private readonly pendingArgs = new Map<string, HashedArgs>();

  private constructor(
    private readonly conn: Connection,
    private readonly opts: RunnerOptions,
  ) {
    conn.setCorrelation((d) => (d.type === 'tool_decision' ? `${d.key}/${d.toolCallId}` : undefined));
    conn.onDecision((d) => this.noticeAbort(d));
  }

  /**
   * Connects, and resolves once connected, or once loopguard is known to be unreachable (the
   * runner then answers by its failure policy and reconnects in the background). Rejects only
   * on a definitive error: refused credentials, a registry that refuses loopguard's schemas.
   */
  static async connect(opts: RunnerOptions): Promise<LoopguardRunner> {
    const runner = LoopguardRunner.start(opts);
    await runner.ready;
    return runner;
  }

  /** A runner that connects in the background: usable at once (answering by policy until connected); `ready` settles as `connect` does. */
  static start(opts: RunnerOptions): LoopguardRunner {
    return new LoopguardRunner(Connection.start(opts, [{ topic: 'toolEvents', codec: toolEventCodec }]), opts);
  }

  /** Settles as `connect` does. */
  get ready(): Promise<void> {
    return this.conn.ready;
  }

  /** Whether loopguard can be reached now. */
  get reachable(): boolean {
    return this.conn.reachable;
  }

  /** The abort of a run, once loopguard has ended it (compaction loop or escalation); never a shadow one. */
  abortOf(run: RunRef): RunAbortNotice | undefined {
    return this.aborted.get(runKeyOf(run));
  }

  /** Resolves within `timeoutMs` whatever is down: loopguard's verdict, else the failure policy's. */
  async beforeToolCall(call: ToolCallInput): Promise<ToolVerdict> {
    const toolCallId = call.toolCallId ?? randomUUID();
    const key = runKeyOf(call);
    const args = this.argsFields(call);
    if (args.argsHash !== undefined) this.rememberArgs(`${key}/${toolCallId}`, args);
    const event = { type: 'tool_call', ts: Date.now(), eventId: randomUUID(), ...this.identity(call), toolCallId, turnId: call.turnId ?? null, toolName: call.toolName, ...args };
    const aborted = this.aborted.get(key);
    if (aborted !== undefined) {
      this.send(call, event);
      return abortedVerdict(aborted, toolCallId);
    }
    const k = this.kafkaKey(call);
    // Decisions name their run whatever the events are keyed by: they are matched by run and call.
    const a = await this.conn.request(this.conn.topics.toolEvents, k, k, avroBody(toolEventCodec, event), `${key}/${toolCallId}`);
    if (a.decision === undefined || a.decision.type !== 'tool_decision') return this.failurePolicy(call.toolName, toolCallId, a.failure ?? 'timeout');
    return toolVerdictOf(a.decision, toolCallId);
  }

  /**
   * The calls one model turn asked for together, in the model's order (docs/behaviour.md §6.4):
   * all are published, with one `turnId`, before any answer is awaited, and the verdicts come
   * back in the same order within `timeoutMs`. Run the calls only after this resolves. With
   * `profile: 'openclaw'` the turn rule is applied: when any verdict is `block`, every call is
   * blocked (the others with a note that they were not run) and none may run. Without the
   * profile each call keeps its own verdict. All calls must belong to one run.
   */
  async beforeToolCalls(calls: readonly Omit<ToolCallInput, 'turnId'>[], turn: TurnOptions = {}): Promise<ToolVerdict[]> {
    const first = calls[0];
    if (first === undefined) return [];
    const key = runKeyOf(first);
    const stranger = calls.find((c) => runKeyOf(c) !== key);
    if (stranger !== undefined) throw new TypeError(`loopguard: beforeToolCalls: the calls of a turn belong to one run, but run ${runKeyOf(stranger)} is not ${key}`);
    const turnId = turn.turnId ?? randomUUID();
    // Each call's event is queued before the next is built (beforeToolCall queues before it
    // awaits), so the turn reaches its partition in the model's order.
    const verdicts = await Promise.all(calls.map((c) => this.beforeToolCall({ ...c, turnId })));
    return this.opts.profile === 'openclaw'
      ? turnVerdicts(
          calls.map((c) => c.toolName),
          verdicts,
        )
      : verdicts;
  }

  /** Returns at once: the outcome is sent in the background (queued while loopguard is unreachable). */
  async afterToolCall(call: ToolCallInput & { toolCallId: string }, outcome: ToolOutcome): Promise<void> {
    const key = runKeyOf(call);
    const known = this.pendingArgs.get(`${key}/${call.toolCallId}`);
    this.pendingArgs.delete(`${key}/${call.toolCallId}`);
    const args = known ?? this.argsFields(call);
    const base = { type: 'tool_outcome', ts: Date.now(), eventId: randomUUID(), ...this.identity(call), toolCallId: call.toolCallId, toolName: call.toolName, ...args };
    // A host's own tool-loop block is recorded as what it is, a veto, whatever error text the
    // host gave with it: the openclaw profile counts it (§6.3), §2's rules pass it by.
    if (isHostVeto(outcome.result)) return this.send(call, this.opts.sendRaw ? { ...base, result: outcome.result } : { ...base, openclaw: { veto: true } });
    if (this.opts.sendRaw) return this.send(call, { ...base, result: outcome.result, error: outcome.error, transient: outcome.transient });
    const input = { toolName: call.toolName, args: call.args, result: outcome.result, error: outcome.error };
    const hashed = hashOutcome(input);
    if (hashed === undefined) return; // nothing to compare (no result, or our own block echoed back)
    const profile = this.opts.profile === 'openclaw' ? openclawOutcome(input) : undefined;
    const progress = this.opts.profile === 'early' ? { progressHash: earlyProgressHash(input) ?? null } : {};
    this.send(call, { ...base, ...hashed, transient: hashedTransientFlag(outcome, hashed.unknownToolName !== undefined), ...(profile ? { openclaw: profile } : {}), ...progress });
  }

  /** Returns at once, as `afterToolCall` does. */
  async compacted(run: RunRef): Promise<void> {
    this.send(run, { type: 'compaction', ts: Date.now(), eventId: randomUUID(), ...this.identity(run) });
  }

  /** Returns at once, as `afterToolCall` does. */
  async runEnded(run: RunRef): Promise<void> {
    this.send(run, { type: 'run_end', ts: Date.now(), eventId: randomUUID(), ...this.identity(run) });
    this.aborted.delete(runKeyOf(run));
  }

  /** Sends what is queued (up to 5 s), then disconnects. */
  close(): Promise<void> {
    return this.conn.close();
  }

  private identity(r: RunRef) {
    return { sessionKey: r.sessionKey, runId: r.runId ?? null, agentId: r.agentId ?? null };
  }

  /** The call's own loopKey, else the runner's for its tool (§7.1). */
  private loopKeyOf(call: ToolCallInput): LoopKey | undefined {
    const byTool = this.opts.loopKeys;
    return call.loopKey ?? (byTool !== undefined && Object.hasOwn(byTool, call.toolName) ? byTool[call.toolName] : undefined);
  }

  /** The arguments as sent: raw, or hashed (restricted to the call's loopKey), with the loopKey itself and, for the early preset, the identity. */
  private argsFields(call: ToolCallInput): HashedArgs {
    const loopKey = this.loopKeyOf(call);
    const own = loopKey === undefined ? {} : { loopKey };
    if (this.opts.sendRaw) return { args: call.args, ...own };
    const identity = this.opts.profile === 'early' ? { identityHash: earlyIdentity(call.toolName, call.args, loopKey) } : {};
    return { argsHash: keyedArgsHash(call.toolName, call.args, loopKey), action: actionOf(call.args) ?? null, ...own, ...identity };
  }

  private rememberArgs(id: string, args: HashedArgs): void {
    // Bounded: calls whose outcome never comes must not grow the map forever.
    if (this.pendingArgs.size >= 10_000) this.pendingArgs.delete(this.pendingArgs.keys().next().value!);
    this.pendingArgs.set(id, args);
  }

  /** The Kafka key (and partition key) of the run's events. */
  private kafkaKey(run: RunRef): string {
    return this.opts.keyBy === 'session' ? sessionKeyOf(run) : runKeyOf(run);
  }

  /** Encoded now (an invalid event throws here, to the caller), sent in the background. */
  private send(run: RunRef, event: Record<string, unknown>): void {
    const key = this.kafkaKey(run);
    this.conn.publish(this.conn.topics.toolEvents, key, key, avroBody(toolEventCodec, event));
  }

  private failurePolicy(toolName: string, toolCallId: string, why: NoAnswer): ToolVerdict {
    return toolFailureVerdict(this.opts.failure, toolName, toolCallId, this.conn.timeoutMs, why);
  }

  private noticeAbort(d: Decision): void {
    if (d.type !== 'run_abort') return;
    const notice = abortNoticeOf(d);
    if (d.shadow === true) return this.opts.onWouldAbort?.(notice);
    // A run is aborted at most once (§4.2): the first notice stands.
    if (this.aborted.has(d.key)) return;
    this.aborted.set(d.key, notice);
    this.opts.onAbort?.(notice);
  }
}
