// The OpenClaw side of the differential test (test/openclawDifferential.test.ts), run under Node 24:
// plays generated traces through openclaw@2026.9.6's own exported functions and writes what each
// call got. Nothing of OpenClaw is copied here: its chunks are found in the installed package by
// the functions they define (their file names are hashed) and imported as they are.
//
//   node openclawOracle.mjs <traces.json> <results.json>
//
// Per run: the gateway's before-tool-call wrapper around a stub tool whose outcome each trace step
// scripts (a single call), or its batch admission followed by the wrapper (a turn), as the
// embedded agent drives them. The post-compaction guard is not exported: its documented window
// rule is applied here to the outcomes OpenClaw itself reports through `ctx.onToolOutcome`.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dist = join(import.meta.dirname, '..', 'hosts', 'openclaw', 'node_modules', 'openclaw', 'dist');

/** The chunk that defines `fn`, and the name it exports `fn` under. */
function exported(fn, prefix) {
  for (const file of readdirSync(dist)) {
    if (!file.startsWith(prefix) || !file.endsWith('.mjs')) continue;
    const text = readFileSync(join(dist, file), 'utf8');
    if (!text.includes(`function ${fn}(`)) continue;
    const m = new RegExp(`\\b${fn} as (\\w+)\\b`).exec(text.slice(text.lastIndexOf('export {')));
    if (m) return { file: join(dist, file), name: m[1] };
  }
  throw new Error(`openclaw: no chunk ${prefix}* exports ${fn}`);
}

async function load(fn, prefix) {
  const { file, name } = exported(fn, prefix);
  return (await import(file))[name];
}

const wrapToolWithBeforeToolCallHook = await load('wrapToolWithBeforeToolCallHook', 'agent-tools.before-tool-call-');
const admitToolCallBatch = await load('admitToolCallBatch', 'agent-tools.before-tool-call-');
const detectToolCallLoop = await load('detectToolCallLoop', 'tool-loop-detection-');
const recordToolCall = await load('recordToolCall', 'tool-loop-detection-');
const getDiagnosticSessionState = await load('getDiagnosticSessionState', 'diagnostic-session-state-');
const normalizeToolPolicyName = await load('normalizeToolPolicyName', 'tool-policy-shared-');

const WINDOW = 3;
const WARNING = /^\[System note: Tool-loop warning after (\d+) repeated calls/;
const config = { enabled: true };

/** What the stub tool does for the call being run: return a result or throw. */
let scripted;
let executed = false;

function stubOf(toolName) {
  return {
    name: toolName,
    execute: async () => {
      executed = true;
      if (scripted.error !== undefined) throw new Error(scripted.error);
      return structuredClone(scripted.result);
    },
  };
}

function warningOf(result) {
  const last = Array.isArray(result?.content) ? result.content.at(-1) : undefined;
  const m = typeof last?.text === 'string' ? WARNING.exec(last.text) : null;
  return m ? Number(m[1]) : null;
}

const classOf = (det) => (det.stuck ? { class: det.level === 'critical' ? 'block' : 'warn', detector: det.detector, count: det.count } : { class: 'allow' });

async function play(trace) {
  const sessionKey = `${trace.sessionKey}-${process.pid}`;
  const sessionId = `${sessionKey}-id`;
  const state = () => getDiagnosticSessionState({ sessionKey, sessionId });
  const runs = new Map();
  const runOf = (runId) => {
    let r = runs.get(runId);
    if (r === undefined) {
      r = { dead: false, criticalSeen: false, guard: null, tools: new Map(), outcomes: [] };
      r.ctx = { sessionKey, sessionId, runId, loopDetection: config, onToolOutcome: (o) => r.outcomes.push(o) };
      runs.set(runId, r);
    }
    return r;
  };
  const toolOf = (r, toolName) => {
    let t = r.tools.get(toolName);
    if (t === undefined) r.tools.set(toolName, (t = wrapToolWithBeforeToolCallHook(stubOf(toolName), r.ctx)));
    return t;
  };
  // The documented window rule over what OpenClaw reports: armed by a compaction, it aborts the run
  // when `WINDOW` of the next `WINDOW` outcomes share tool, arguments and result.
  const observe = (r) => {
    let aborted = null;
    for (const o of r.outcomes.splice(0)) {
      if (r.guard === null || r.guard.remaining <= 0 || aborted !== null) continue;
      r.guard.remaining--;
      r.guard.window.push(o);
      const same = r.guard.window.filter((w) => w.toolName === o.toolName && w.argsHash === o.argsHash && w.resultHash === o.resultHash).length;
      if (same >= WINDOW) aborted = { detector: 'compaction_loop_persisted', count: same };
    }
    return aborted;
  };
  const out = [];
  for (const step of trace.steps) {
    const r = runOf(step.run);
    if (r.dead) continue;
    if (step.kind === 'compaction') {
      r.guard = { remaining: WINDOW, window: [] };
      continue;
    }
    if (step.kind === 'end') continue;
    if (step.kind === 'call') {
      const det = detectToolCallLoop(state(), normalizeToolPolicyName(step.toolName), step.args, config, { runId: step.run });
      scripted = step.outcome;
      executed = false;
      let result;
      let threw = false;
      try {
        result = await toolOf(r, step.toolName).execute(step.toolCallId, step.args);
      } catch {
        threw = true;
      }
      const blocked = !threw && result?.details?.status === 'blocked' && result.details.deniedReason === 'tool-loop';
      const abort = observe(r);
      if (abort !== null) r.dead = true;
      out.push({
        toolCallId: step.toolCallId,
        ...classOf(det),
        ran: executed,
        warning: threw ? null : warningOf(result),
        shown: blocked ? 'trigger' : null,
        terminal: false,
        abort,
      });
      continue;
    }
    // A turn: every call admitted (or the turn blocked) before any runs.
    const projected = { ...state(), toolCallHistory: [...(state().toolCallHistory ?? [])] };
    const classes = [];
    let trigger = null;
    for (const c of step.calls) {
      if (trigger !== null) {
        classes.push({ class: 'block', detector: trigger.detector, count: trigger.count });
        continue;
      }
      const name = normalizeToolPolicyName(c.toolName);
      const det = detectToolCallLoop(projected, name, c.args, config, { runId: step.run });
      classes.push(classOf(det));
      if (det.stuck && det.level === 'critical') trigger = { toolCallId: c.toolCallId, detector: det.detector, count: det.count };
      const scratch = { toolCallHistory: [] };
      recordToolCall(scratch, name, c.args, c.toolCallId, config, { runId: step.run });
      projected.toolCallHistory.push({ ...scratch.toolCallHistory[0], outcomeKind: 'tool-loop-veto' });
    }
    const admission = await admitToolCallBatch(
      step.calls.map((c) => ({ toolCall: { id: c.toolCallId, name: c.toolName }, args: c.args })),
      r.ctx,
    );
    if ((admission.intervention?.toolCallId ?? null) !== (trigger?.toolCallId ?? null)) {
      throw new Error(`trace ${trace.id}: admission blocked ${admission.intervention?.toolCallId} where detection says ${trigger?.toolCallId}`);
    }
    if (admission.intervention) {
      const terminal = r.criticalSeen;
      r.criticalSeen = true;
      if (terminal) r.dead = true;
      step.calls.forEach((c, i) =>
        out.push({ toolCallId: c.toolCallId, ...classes[i], ran: false, warning: null, shown: c.toolCallId === trigger.toolCallId ? 'trigger' : 'sibling', terminal, abort: null }),
      );
      continue;
    }
    admission.commitReadyCalls(step.calls.map((c) => ({ toolCallId: c.toolCallId, args: c.args })));
    for (const [i, c] of step.calls.entries()) {
      // After an abort the rest of the turn does not run.
      if (r.dead) {
        out.push({ toolCallId: c.toolCallId, ...classes[i], ran: false, warning: null, shown: null, terminal: false, abort: null });
        continue;
      }
      scripted = c.outcome;
      executed = false;
      try {
        await toolOf(r, c.toolName).execute(c.toolCallId, c.args);
      } catch {
        // The agent turns the error into a result; the admission's warning is appended to it all the same.
      }
      const warning = admission.warnings.find((w) => w.toolCallId === c.toolCallId)?.count ?? null;
      const abort = observe(r);
      if (abort !== null) r.dead = true;
      out.push({ toolCallId: c.toolCallId, ...classes[i], ran: executed, warning, shown: null, terminal: false, abort });
    }
  }
  return out;
}

const [input, output] = process.argv.slice(2);
const traces = JSON.parse(readFileSync(input, 'utf8'));
const results = {};
for (const t of traces) results[t.id] = await play(t);
writeFileSync(output, JSON.stringify(results));
