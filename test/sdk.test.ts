// The SDK clients against a running processor, the failure policies without one, and the
// operator's endpoints.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LoopguardDispatcher, LoopguardRunner, type RunAbortNotice, type ToolVerdict } from '../sdk/index.js';
import { httpPort, infraEnv, lg, lgOk, ready, replayOf, waitFor, world, writeEvents, type World } from './helpers/harness.js';
import { mixedTraffic } from './helpers/traffic.js';

const clientOptions = (w: World, failure: 'open' | 'closed', timeoutMs = 15_000) => ({
  brokers: [infraEnv().KAFKA_BROKERS],
  schemaRegistryUrl: infraEnv().SCHEMA_REGISTRY_URL,
  topics: w.config.topics,
  failure,
  timeoutMs,
});

/** Runs a node script with the world's config and the test infrastructure. */
async function lgNode(args: string[], w: World): Promise<string> {
  const { spawn } = await import('node:child_process');
  const child = spawn('node', args, { cwd: join(import.meta.dirname, '..'), env: { ...process.env, ...infraEnv(), LOOPGUARD_CONFIG: w.configFile, LOG_LEVEL: 'warn' } });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  const code = await new Promise((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited ${code}:\n${out}`);
  return out;
}

async function started(w: World) {
  await lgOk(['topics', 'create', '--config', w.configFile]);
  const run = lg(['run', '--config', w.configFile]);
  await ready(run);
  return run;
}

describe('runner SDK', () => {
  it('gets allow, warn and block for a looping agent, then learns of the abort after compaction', async () => {
    const w = world('sdk-runner');
    await started(w);
    let aborted: RunAbortNotice | undefined;
    const runner = await LoopguardRunner.connect({
      ...clientOptions(w, 'closed'),
      onAbort: (a) => {
        aborted = a;
      },
    });
    try {
      const run = { sessionKey: 'agent:main:1', runId: 'sdk-run-1', agentId: 'main' };
      const verdicts: ToolVerdict[] = [];
      for (let i = 0; i < 21; i++) {
        const call = { ...run, toolName: 'read', args: { path: 'src/a.ts' } };
        const v = await runner.beforeToolCall(call);
        verdicts.push(v);
        if (v.decision !== 'block') await runner.afterToolCall({ ...call, toolCallId: v.toolCallId }, { result: { content: [{ type: 'text', text: 'same' }] } });
      }
      expect(verdicts.every((v) => v.answeredBy === 'loopguard')).toBe(true);
      expect(verdicts.slice(0, 10).map((v) => v.decision)).toEqual(Array(10).fill('allow'));
      expect(verdicts[10]).toMatchObject({ decision: 'warn', notify: true, detector: 'generic_repeat', count: 10 });
      expect(verdicts[10]!.message).toContain('read');
      expect(verdicts[11]).toMatchObject({ decision: 'warn', notify: false });
      expect(verdicts[20]).toMatchObject({ decision: 'block', detector: 'generic_repeat', count: 20 });
      expect(verdicts[20]!.message).toContain('Blocked');

      const run2 = { sessionKey: 'agent:main:2', runId: 'sdk-run-2' };
      await runner.compacted(run2);
      for (let i = 0; i < 3; i++) {
        const call = { ...run2, toolName: 'exec', args: { command: 'npm test' } };
        const v = await runner.beforeToolCall(call);
        await runner.afterToolCall({ ...call, toolCallId: v.toolCallId }, { result: { details: { status: 'failed', exitCode: 1, aggregated: 'FAIL' } } });
      }
      await waitFor('the run_abort', () => aborted !== undefined);
      expect(aborted).toMatchObject({ runKey: 'sdk-run-2', toolName: 'exec', count: 3 });
      expect(runner.abortOf(run2)?.message).toContain('compaction_loop_persisted');
      const after = await runner.beforeToolCall({ ...run2, toolName: 'read', args: {} });
      expect(after).toMatchObject({ decision: 'block', detector: 'compaction_loop_persisted', answeredBy: 'run-aborted' });
    } finally {
      await runner.close();
    }
  });

  it.each([
    ['open', 'allow', 'fail-open'],
    ['closed', 'block', 'fail-closed'],
  ] as const)('fails %s as configured when the processor is down', async (failure, decision, answeredBy) => {
    const w = world(`sdk-fail-${failure}`);
    await lgOk(['topics', 'create', '--config', w.configFile]);
    const runner = await LoopguardRunner.connect(clientOptions(w, failure, 500));
    try {
      const v = await runner.beforeToolCall({ sessionKey: 's', toolName: 'read', args: { p: 1 } });
      expect(v).toMatchObject({ decision, answeredBy });
      if (failure === 'closed') expect(v.message).toContain('did not answer');
    } finally {
      await runner.close();
    }
  });
});

describe('dispatcher SDK', () => {
  it('suppresses a bot storm and stops waiting on the processor during a known cooldown', async () => {
    const w = world('sdk-dispatcher');
    await started(w);
    const dispatcher = await LoopguardDispatcher.connect(clientOptions(w, 'open'));
    try {
      const t0 = Date.now();
      const slack = (i: number) => ({
        channel: 'slack' as const,
        context: { accountId: 'T0ACME', botId: i % 2 ? 'B0DEPLOY' : 'B0TRIAGE' },
        payload: {
          type: 'event_callback',
          team_id: 'T0ACME',
          event: {
            type: 'message',
            subtype: 'bot_message',
            channel: 'C0ALERTS',
            bot_id: i % 2 ? 'B0TRIAGE' : 'B0DEPLOY',
            text: `ping ${i}`,
            ts: ((t0 + i * 100) / 1000).toFixed(6),
          },
        },
      });
      const human = await dispatcher.inbound({
        channel: 'slack',
        context: { accountId: 'T0ACME', botId: 'B0DEPLOY' },
        payload: { event: { type: 'message', channel: 'C0ALERTS', user: 'U1', text: 'hi', ts: '1.0' } },
      });
      expect(human).toMatchObject({ deliver: true, answeredBy: 'adapter' });
      const verdicts: Awaited<ReturnType<typeof dispatcher.inbound>>[] = [];
      for (let i = 0; i < 25; i++) verdicts.push(await dispatcher.inbound(slack(i)));
      expect(verdicts.slice(0, 20).every((v) => v.deliver && v.answeredBy === 'loopguard')).toBe(true);
      expect(verdicts[20]).toMatchObject({ deliver: false, reason: 'pair_budget', answeredBy: 'loopguard' });
      expect(verdicts.slice(21).every((v) => !v.deliver && v.answeredBy === 'local-cooldown' && v.cooldownUntil === verdicts[20]!.cooldownUntil)).toBe(true);
    } finally {
      await dispatcher.close();
    }
  });
});

describe('operations endpoints', () => {
  it('serves /healthz, /readyz after restore, and /metrics whose counters move', async () => {
    const w = world('metrics');
    await lgOk(['topics', 'create', '--config', w.configFile]);
    const run = lg(['run', '--config', w.configFile]);
    const port = await httpPort(run);
    const get = async (path: string) => {
      const r = await fetch(`http://127.0.0.1:${port}${path}`);
      return { status: r.status, text: await r.text() };
    };
    expect((await get('/healthz')).status).toBe(200);
    await waitFor('/readyz', async () => (await get('/readyz')).status === 200);
    const metric = (text: string, name: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith(name))
        .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
    const before = (await get('/metrics')).text;
    expect(metric(before, 'loopguard_decisions_total')).toBe(0);
    const events = writeEvents(w.name, mixedTraffic(4, 12));
    const expected = await replayOf(w, events);
    await lgOk(['produce', '--config', w.configFile, events]);
    await waitFor('the counters to reach every decision', async () => metric((await get('/metrics')).text, 'loopguard_decisions_total{') >= expected.size);
    const after = (await get('/metrics')).text;
    expect(metric(after, 'loopguard_events_total{type="tool_call"}')).toBeGreaterThan(0);
    expect(metric(after, 'loopguard_decisions_total{type="bot_decision",decision="deliver"')).toBeGreaterThan(0);
    expect(after).toContain('loopguard_restore_duration_seconds_count');
    expect(after).toContain('loopguard_decision_latency_seconds_bucket');
    expect(after).toContain('loopguard_consumer_lag');
    run.child.kill('SIGTERM');
    expect(await run.exited()).toBe(0);
  });
});

describe('examples', () => {
  it('run end to end: a loop blocked, a compaction loop aborted, a bot storm suppressed', async () => {
    const w = world('examples');
    await started(w);
    const runner = await lgNode(['examples/agent-runner.mjs'], w);
    expect(runner).toMatch(/call 21 read src\/config.ts → block/);
    expect(runner).toContain('the compaction loop was stopped');
    const dispatcher = await lgNode(['examples/channel-dispatcher.mjs'], w);
    expect(dispatcher).toContain('20 delivered, 10 suppressed');
    expect(dispatcher).toContain('answered by local-cooldown');
  });
});
