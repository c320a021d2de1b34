// loopguard as a LoopBench row: the real topology in memory (the driver `loopguard replay` runs),
// fed each trace's events as the integrations publish them, one call at a time (closed loop: a
// blocked call does not run, so its outcome is never published).
import { fileURLToPath } from 'node:url';
import { configFrom, loadConfig } from '../../../dist/topology/config.js';
import { buildTopology } from '../../../dist/topology/build.js';
import { InMemoryDriver } from '../../../dist/topology/testing/driver.js';
import { outcomeOfError, outcomeOfResult } from '../../../dist/integrations/mcp/results.js';

/** What an integration publishes for a call that ran, from the host's own result. */
export function published(step) {
  const { host, outcome } = step;
  if (host === 'mcp') return outcome.result !== undefined ? outcomeOfResult(outcome.result) : outcomeOfError(new Error(errorMessage(outcome.error)));
  return outcome;
}

const errorMessage = (e) => (typeof e === 'string' ? e : (e?.message ?? JSON.stringify(e)));

/**
 * A row: a name, the config it runs with (as a user writes it, or the URL of a config file,
 * loaded as `loopguard --config` loads it), and whether its runner applies the batch rule.
 */
export function loopguardGuard(name, config, { batchRule = false } = {}) {
  const topology = buildTopology(config instanceof URL ? loadConfig(fileURLToPath(config), {}) : configFrom(config));
  return {
    name,
    batchRule,
    session(trace) {
      const driver = new InMemoryDriver(topology, 1, () => Number.MAX_SAFE_INTEGER);
      const pipe = (event) => {
        const r = driver.pipe(event);
        if (!r.ok) throw new Error(`loopbench: ${trace.id}: loopguard refused ${event.type}: ${r.reason}`);
        return r.decisions;
      };
      const ids = (step) => ({ sessionKey: trace.session, runId: step.runId });
      return {
        calls(steps) {
          return steps.map((s) => {
            const decisions = pipe({
              type: 'tool_call',
              ts: s.ts,
              ...ids(s),
              toolCallId: `c${s.index}`,
              ...(s.turnId === undefined ? {} : { turnId: s.turnId }),
              toolName: s.toolName,
              args: s.args,
            });
            const d = decisions.find((x) => x.type === 'tool_decision');
            const abort = decisions.some((x) => x.type === 'run_abort');
            return { action: d.decision, notify: d.notify === true, detector: d.detector, count: d.count, abort };
          });
        },
        outcome(s) {
          const o = published(s);
          const decisions = pipe({ type: 'tool_outcome', ts: s.doneTs, ...ids(s), toolCallId: `c${s.index}`, toolName: s.toolName, args: s.args, ...o });
          return { abort: decisions.some((x) => x.type === 'run_abort') };
        },
        compaction(s) {
          pipe({ type: 'compaction', ts: s.ts, ...ids(s) });
        },
        runEnd(s) {
          pipe({ type: 'run_end', ts: s.ts, ...ids(s) });
        },
        bot(s) {
          const decisions = pipe({
            type: 'bot_message',
            ts: s.ts,
            channel: s.channel,
            accountId: s.accountId,
            conversationId: s.conversationId,
            senderId: s.senderId,
            receiverId: s.receiverId,
            eventId: `${trace.id}/m${s.index}`,
          });
          return { action: decisions[0].decision === 'suppress' ? 'block' : 'allow' };
        },
        human(s) {
          pipe({ type: 'human_message', ts: s.ts, channel: s.channel, accountId: s.accountId, conversationId: s.conversationId, senderId: s.senderId });
        },
      };
    },
  };
}
