// OpenClaw 2026.9.6's in-process guards, reimplemented from their documentation
// (docs.openclaw.ai/tools/loop-detection, the 2026.9 release notes, and the channel docs'
// "bot loop protection"): the rolling detectors with the thresholds 2026.9 fixed (history 30,
// warning 10, critical 20, global breaker 30, unknown tool 10), argument churn (a warning at
// 10), blocked calls recorded and counted as no-progress, warnings shown when count / 10 rises;
// and the bot-pair budget (more than 20 messages a pair in 60 s: suppressed for 60 s). Outcomes
// are hashed with loopguard's hashing library, which follows the gateway's documented rules, as
// the gateway sees them: an MCP tool's result as its content blocks (text and details count), a
// framework tool's JSON as the text the gateway would wrap it in.
// Simplified: no per-session history shared across runs, no batch admission, no exec failure
// identity (loopguard's `openclaw` profile row has those, proven against the package itself).
import { hashOutcome } from '../../../dist/processors/toolLoop/hashing.js';
import { ALLOW, identityOf } from './common.mjs';

const HISTORY = 30;
const WARN = 10;
const CRITICAL = 20;
const GLOBAL = 30;
const UNKNOWN = 10;
const isPoll = (s) => s.toolName === 'command_status' || (s.toolName === 'process' && (s.args?.action === 'poll' || s.args?.action === 'log'));

function streakOf(history, id) {
  let n = 0;
  let hash;
  let pendingVetoes = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const h = history[i];
    if (h.id !== id) continue;
    if (h.veto) {
      pendingVetoes++;
      continue;
    }
    if (h.hash === undefined) continue;
    if (hash === undefined) hash = h.hash;
    else if (h.hash !== hash) break;
    n += pendingVetoes + 1;
    pendingVetoes = 0;
  }
  return hash === undefined ? pendingVetoes : n;
}

function pingPong(history, id) {
  const last = history.at(-1);
  if (last === undefined) return { count: 0 };
  const other = [...history].reverse().find((h) => h.id !== last.id)?.id;
  if (other === undefined || other !== id) return { count: 0 };
  let tail = 0;
  for (let i = history.length - 1; i >= 0 && history[i].id === (tail % 2 === 0 ? last.id : other); i--) tail++;
  if (tail < 2) return { count: 0 };
  const side = (x) =>
    new Set(
      history
        .slice(history.length - tail)
        .filter((h) => h.id === x)
        .map((h) => h.hash),
    );
  const stable = [last.id, other].every((x) => {
    const hs = side(x);
    return hs.size === 1 && !hs.has(undefined);
  });
  return { count: tail + 1, stable };
}

function churn(history, toolName, id) {
  const variants = new Map();
  for (let i = history.length - 1; i >= 0; i--) {
    const h = history[i];
    if (h.toolName !== toolName) break;
    if (h.hash === undefined) continue;
    if (!h.noProgress) break;
    const v = variants.get(h.id);
    if (v && v.hash !== h.hash) break;
    variants.set(h.id, { hash: h.hash, n: (v?.n ?? 0) + 1 });
  }
  const all = [...variants.values()];
  const stable = all.filter((v) => v.n >= 3);
  const count = all.reduce((n, v) => n + v.n, 0);
  const ok = stable.length > 1 && stable.reduce((n, v) => n + v.n, 0) === count && new Set(stable.map((v) => v.hash)).size === 1 && (variants.get(id)?.n ?? 0) >= 3;
  return ok ? count : 0;
}

function detect(history, s) {
  const id = identityOf(s);
  const unknown = (() => {
    let n = 0;
    let name;
    for (let i = history.length - 1; i >= 0; i--) {
      const h = history[i];
      if (h.toolName !== s.toolName || !h.unknown || (name !== undefined && h.unknown !== name)) break;
      name = h.unknown;
      n++;
    }
    return n;
  })();
  if (unknown >= UNKNOWN) return { level: 'critical', detector: 'unknown_tool_repeat', count: unknown, key: `u:${s.toolName}` };
  const streak = streakOf(history, id);
  if (streak >= GLOBAL) return { level: 'critical', detector: 'global_circuit_breaker', count: streak, key: `g:${id}` };
  const poll = isPoll(s);
  if (poll && streak >= CRITICAL) return { level: 'critical', detector: 'known_poll_no_progress', count: streak, key: `p:${id}` };
  if (poll && streak >= WARN) return { level: 'warning', detector: 'known_poll_no_progress', count: streak, key: `p:${id}` };
  const pp = pingPong(history, id);
  if (pp.count >= CRITICAL && pp.stable) return { level: 'critical', detector: 'ping_pong', count: pp.count, key: `pp:${id}` };
  if (pp.count >= WARN) return { level: 'warning', detector: 'ping_pong', count: pp.count, key: `pp:${id}` };
  if (!poll && streak >= CRITICAL) return { level: 'critical', detector: 'generic_repeat', count: streak, key: `c:${id}` };
  const ch = churn(history, s.toolName, id);
  if (ch >= WARN) return { level: 'warning', detector: 'argument_churn', count: ch, key: `ch:${s.toolName}` };
  const recent = history.filter((h) => h.id === id).length;
  if (!poll && recent >= WARN) return { level: 'warning', detector: 'generic_repeat', count: recent, key: `w:${id}` };
  return undefined;
}

const push = (history, rec) => {
  history.push(rec);
  if (history.length > HISTORY) history.splice(0, history.length - HISTORY);
};

/** A call's outcome in the shape the gateway itself gives tool results. */
function asGatewaySees({ host, outcome }) {
  if (outcome.error !== undefined) return outcome;
  const r = outcome.result;
  if (host === 'mcp') return r.isError ? { error: r.content.map((c) => c.text ?? '').join('\n') } : { result: { content: r.content, details: {} } };
  if (host === 'framework') return { result: { content: [{ type: 'text', text: JSON.stringify(r) }], details: {} } };
  return outcome;
}

export const openclawAnchor = {
  name: 'OpenClaw 2026.9.6 (documented)',
  batchRule: false,
  session() {
    const runs = new Map();
    const runOf = (id) => runs.get(id) ?? runs.set(id, { history: [], buckets: new Map() }).get(id);
    const pairs = new Map();
    return {
      calls(steps) {
        return steps.map((s) => {
          const run = runOf(s.runId);
          const found = detect(run.history, s);
          if (found?.level === 'critical') {
            push(run.history, { id: identityOf(s), toolName: s.toolName, veto: true });
            return { action: 'block', notify: true, detector: found.detector, count: found.count };
          }
          push(run.history, { id: identityOf(s), toolName: s.toolName, callIndex: s.index });
          if (found === undefined) return ALLOW;
          const bucket = Math.floor(found.count / 10);
          const notify = bucket > (run.buckets.get(found.key) ?? 0);
          if (notify) run.buckets.set(found.key, bucket);
          return { action: 'warn', notify, detector: found.detector, count: found.count };
        });
      },
      outcome(s) {
        const run = runOf(s.runId);
        const o = asGatewaySees(s);
        const h = hashOutcome({ toolName: s.toolName, args: s.args, result: o.result, error: o.error });
        const rec = run.history.findLast((r) => r.callIndex === s.index);
        const noProgress = o.error !== undefined || (s.toolName === 'write' && o.result?.details?.changed === false);
        if (rec !== undefined && h !== undefined) Object.assign(rec, { hash: h.resultHash, unknown: h.unknownToolName, noProgress });
      },
      compaction: () => undefined,
      runEnd: (s) => runs.delete(s.runId),
      bot(s) {
        const key = [s.channel, s.accountId, s.conversationId, ...[s.senderId, s.receiverId].sort()].join('\u0000');
        const p = pairs.get(key) ?? pairs.set(key, { ts: [], until: -Infinity }).get(key);
        if (s.ts < p.until) return { action: 'block' };
        p.ts = p.ts.filter((t) => t > s.ts - 60_000);
        p.ts.push(s.ts);
        if (p.ts.length > 20) {
          p.until = s.ts + 60_000;
          p.ts = [];
          return { action: 'block' };
        }
        return ALLOW;
      },
      human: () => undefined,
    };
  },
};
