// The SDK clients against a running processor, the failure policies without one, and the
// operator's endpoints.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { channelEventCodec, toolEventCodec } from '../schemas/codecs.js';
import { LoopguardDispatcher, LoopguardRunner, type RunAbortNotice, type ToolCallInput, type ToolOutcome, type ToolVerdict } from '../sdk/index.js';
import {
  clientOptions as worldClientOptions,
  httpPort,
  infraEnv,
  lg,
  lgOk,
  ready,
  replayOf,
  session,
  waitFor,
  world,
  testKafkaClient,
  writeEvents,
  type World,
} from './helpers/harness.js';
import { mixedTraffic } from './helpers/traffic.js';

const clientOptions = (w: World, failure: 'open' | 'closed', timeoutMs = 15_000) => ({ ...worldClientOptions(w, failure, timeoutMs), kafkaClient: testKafkaClient() });

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

/** Calls `read` on the same file `calls` times, with the same outcome after every call the runner may run. */
async function sameCall(runner: LoopguardRunner, run: Omit<ToolCallInput, 'toolName' | 'args'>, calls: number, outcome: ToolOutcome): Promise<ToolVerdict[]> {
  const verdicts: ToolVerdict[] = [];
  for (let i = 0; i < calls; i++) {
    const call = { ...run, toolName: 'read', args: { path: 'src/a.ts' } };
    const v = await runner.beforeToolCall(call);
    verdicts.push(v);
    if (v.decision !== 'block') await runner.afterToolCall({ ...call, toolCallId: v.toolCallId }, outcome);
  }
  return verdicts;
}

/** Thresholds low enough for short runs: warn at 3, block at 5. */
const lowThresholds = { tools: { loopDetection: { enabled: true, warningThreshold: 3, criticalThreshold: 5 } } };

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

  it('allows a shadow agent’s would-be blocks with wouldHave, and ends an enforced run by escalation through onAbort', async () => {
    const w = world('sdk-policy', lowThresholds, 3, { toolPolicy: { escalation: { abortAfterBlocks: 2 }, agents: { canary: { mode: 'shadow' } } } });
    await started(w);
    const aborts: RunAbortNotice[] = [];
    const wouldAbort: RunAbortNotice[] = [];
    const runner = await LoopguardRunner.connect({ ...clientOptions(w, 'closed'), onAbort: (a) => aborts.push(a), onWouldAbort: (a) => wouldAbort.push(a) });
    try {
      const same = { result: 'export const retries = 3;' };
      const canary = await sameCall(runner, { sessionKey: 'agent:canary:1', runId: 'sdk-canary', agentId: 'canary' }, 8, same);
      expect(canary.map((v) => [v.decision, v.answeredBy])).toEqual(Array(8).fill(['allow', 'loopguard']));
      expect(canary.map((v) => v.wouldHave?.decision ?? null)).toEqual([null, null, null, 'warn', 'warn', 'block', 'block', 'block']);
      expect(canary[5]!.wouldHave).toMatchObject({ detector: 'generic_repeat', count: 5, evidence: { toolCallIds: canary.slice(0, 5).map((v) => v.toolCallId) } });
      expect(canary[5]!.wouldHave!.message).toContain('read');
      await waitFor('the shadow abort', () => wouldAbort.length > 0);
      expect(wouldAbort).toEqual([expect.objectContaining({ runKey: 'sdk-canary', detector: 'block_escalation', count: 2 })]);
      expect(canary[7]!.wouldHave).toMatchObject({ decision: 'block', detector: 'block_escalation', count: 2 });
      expect(runner.abortOf({ sessionKey: 'agent:canary:1', runId: 'sdk-canary' })).toBeUndefined();

      const main = { sessionKey: 'agent:main:1', runId: 'sdk-main', agentId: 'main' };
      const enforced = await sameCall(runner, main, 7, same);
      expect(enforced.map((v) => v.decision)).toEqual(['allow', 'allow', 'allow', 'warn', 'warn', 'block', 'block']);
      expect(enforced.every((v) => v.wouldHave === null && v.answeredBy === 'loopguard')).toBe(true);
      expect(enforced[5]).toMatchObject({ detector: 'generic_repeat', count: 5, evidence: { toolCallIds: enforced.slice(0, 5).map((v) => v.toolCallId) } });
      await waitFor('the escalation', () => aborts.length > 0);
      expect(aborts).toEqual([
        {
          runKey: 'sdk-main',
          detector: 'block_escalation',
          toolName: 'read',
          count: 2,
          message: expect.stringContaining('read'),
          evidence: expect.objectContaining({ toolCallIds: [enforced[5]!.toolCallId, enforced[6]!.toolCallId] }),
        },
      ]);
      expect(runner.abortOf(main)).toEqual(aborts[0]);
      const later = await runner.beforeToolCall({ ...main, toolName: 'write', args: { path: 'b' } });
      expect(later).toMatchObject({ decision: 'block', detector: 'block_escalation', count: 2, answeredBy: 'run-aborted' });
    } finally {
      await runner.close();
    }
  });

  it('publishes outcomes marked or judged transient, which loopguard does not count as no progress', async () => {
    const w = world('sdk-transient', lowThresholds, 3, { toolPolicy: { transientErrors: true } });
    await started(w);
    const runner = await LoopguardRunner.connect(clientOptions(w, 'closed'));
    try {
      const flakyError = { error: 'the backend said no' };
      const marked = await sameCall(runner, { sessionKey: 's1', runId: 'sdk-marked' }, 7, { ...flakyError, transient: true });
      expect(marked.map((v) => v.decision)).toEqual(['allow', 'allow', 'allow', 'warn', 'warn', 'warn', 'warn']);
      const unmarked = await sameCall(runner, { sessionKey: 's2', runId: 'sdk-unmarked' }, 6, flakyError);
      expect(unmarked.map((v) => v.decision)).toEqual(['allow', 'allow', 'allow', 'warn', 'warn', 'block']);
      const judged = await sameCall(runner, { sessionKey: 's3', runId: 'sdk-judged' }, 7, { error: { message: 'upstream', status: 503 } });
      expect(judged.at(-1)!.decision).toBe('warn');
      const notTransient = await sameCall(runner, { sessionKey: 's4', runId: 'sdk-overruled' }, 1, { error: 'HTTP 503', transient: false });
      expect(notTransient[0]!.decision).toBe('allow');
    } finally {
      await runner.close();
    }
    const { kafka, catalog } = session(w);
    const outcomes = new Map<string, unknown[]>();
    await kafka.readToEnd(w.config.topics.toolEvents, [0, 1, 2], async (r) => {
      const e = await catalog.decode(r.value, toolEventCodec);
      if (e.type === 'tool_outcome') outcomes.set(e.runId as string, [...(outcomes.get(e.runId as string) ?? []), e.transient]);
    });
    expect(outcomes.get('sdk-marked')).toEqual(Array(7).fill(true));
    expect(outcomes.get('sdk-unmarked')).toEqual(Array(5).fill(undefined));
    expect(outcomes.get('sdk-judged')).toEqual(Array(7).fill(true));
    expect(outcomes.get('sdk-overruled')).toEqual([false]);
  });

  it('hashes locally for the early preset: the 3rd identical call is blocked, a loopKey makes calls that differ elsewhere one call', async () => {
    const w = world('sdk-early', { tools: { loopDetection: { enabled: true, profile: 'early' } } });
    await started(w);
    const runner = await LoopguardRunner.connect({ ...clientOptions(w, 'closed'), profile: 'early', loopKeys: { search: ['query'] } });
    try {
      // Results that differ only in when they were made are the same outcome (§7.3).
      let i = 0;
      const stamped = () => ({ result: { text: 'export const retries = 3;', readAt: `2026-06-01T10:00:0${i++}Z` } });
      const reads: ToolVerdict[] = [];
      for (let n = 0; n < 3; n++) {
        const call = { sessionKey: 's1', runId: 'sdk-early-read', toolName: 'read', args: { path: n === 1 ? './src/a.ts' : 'src/a.ts' } };
        const v = await runner.beforeToolCall(call);
        reads.push(v);
        if (v.decision !== 'block') await runner.afterToolCall({ ...call, toolCallId: v.toolCallId }, stamped());
      }
      expect(reads.map((v) => [v.decision, v.detector, v.count])).toEqual([
        ['allow', null, null],
        ['allow', null, null],
        ['block', 'no_progress', 2],
      ]);
      const searches: string[] = [];
      for (let n = 0; n < 3; n++) {
        const call = { sessionKey: 's2', runId: 'sdk-early-search', toolName: 'search', args: { query: 'loopguard', requestId: n } };
        const v = await runner.beforeToolCall(call);
        searches.push(v.decision);
        if (v.decision !== 'block') await runner.afterToolCall({ ...call, toolCallId: v.toolCallId }, { result: 'no results' });
      }
      expect(searches).toEqual(['allow', 'allow', 'block']);
    } finally {
      await runner.close();
    }
    // What went on the wire: hashes only, with the preset's facts and the loopKey.
    const { kafka, catalog } = session(w);
    const seen: Array<Record<string, unknown>> = [];
    await kafka.readToEnd(w.config.topics.toolEvents, [0, 1, 2], async (r) => {
      seen.push((await catalog.decode(r.value, toolEventCodec)) as Record<string, unknown>);
    });
    const outcomes = seen.filter((e) => e.type === 'tool_outcome');
    expect(outcomes).toHaveLength(4);
    for (const e of seen) expect([e.args, typeof e.argsHash, typeof e.identityHash]).toEqual([undefined, 'string', 'string']);
    for (const e of outcomes) expect([e.result, typeof e.progressHash]).toEqual([undefined, 'string']);
    expect(seen.filter((e) => e.toolName === 'search').every((e) => JSON.stringify(e.loopKey) === '["query"]')).toBe(true);
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
      expect(human).toMatchObject({ deliver: true, reason: 'human_message', answeredBy: 'adapter' });
      const verdicts: Awaited<ReturnType<typeof dispatcher.inbound>>[] = [];
      for (let i = 0; i < 25; i++) verdicts.push(await dispatcher.inbound(slack(i)));
      expect(verdicts.slice(0, 20).every((v) => v.deliver && v.answeredBy === 'loopguard')).toBe(true);
      expect(verdicts[20]).toMatchObject({ deliver: false, reason: 'pair_budget', answeredBy: 'loopguard' });
      expect(verdicts.slice(21).every((v) => !v.deliver && v.answeredBy === 'local-cooldown' && v.cooldownUntil === verdicts[20]!.cooldownUntil)).toBe(true);
      expect(verdicts[20]!.evidence).toMatchObject({ count: 21, senders: ['B0DEPLOY', 'B0TRIAGE'] });
      expect(verdicts[21]!.evidence).toEqual(verdicts[20]!.evidence);

      const matrix = await dispatcher.inbound({
        channel: 'matrix',
        context: { accountId: '@deploy:acme.org', selfId: '@deploy:acme.org', configuredBotIds: ['@triage:acme.org'] },
        payload: {
          type: 'm.room.message',
          room_id: '!ops:acme.org',
          sender: '@triage:acme.org',
          event_id: '$b1',
          origin_server_ts: t0,
          content: { body: 'hi', 'm.bounce_limit': 4 },
        },
      });
      expect(matrix).toMatchObject({ deliver: true, answeredBy: 'loopguard' });
    } finally {
      await dispatcher.close();
    }
    // What reached loopguard: the person's message keyed by its conversation, in the partition
    // of that conversation's bot messages; the Matrix bounce limit as the message's hopLimit.
    const { kafka, catalog } = session(w);
    const published: Array<{ key: string; partition: number; event: Record<string, unknown> }> = [];
    await kafka.readToEnd(w.config.topics.channelEvents, [0, 1, 2], async (r) => {
      published.push({ key: String(r.key), partition: r.partition, event: await catalog.decode(r.value, channelEventCodec) });
    });
    const humans = published.filter((p) => p.event.type === 'human_message');
    expect(humans).toEqual([
      {
        key: '["slack","T0ACME","C0ALERTS"]',
        partition: published.find((p) => p.event.type === 'bot_message' && p.event.channel === 'slack')!.partition,
        event: { type: 'human_message', channel: 'slack', accountId: 'T0ACME', conversationId: 'C0ALERTS', senderId: 'U1', ts: 1000, eventId: '1.0' },
      },
    ]);
    expect(published.filter((p) => p.event.type === 'bot_message' && p.event.channel === 'slack')).toHaveLength(25);
    expect(published.find((p) => p.event.channel === 'matrix')!.event).toMatchObject({ type: 'bot_message', senderId: '@triage:acme.org', hopLimit: 4 });
  });
});

describe('dispatcher SDK with the bot policy', () => {
  const deploy = { accountId: '@deploy:acme.org', selfId: '@deploy:acme.org', configuredBotIds: ['@triage:acme.org', '@deploy:acme.org'] };
  const matrix = (room: string, i: number, sender: string, t0: number, bounce?: unknown) => ({
    channel: 'matrix' as const,
    context: deploy,
    payload: {
      type: 'm.room.message',
      room_id: room,
      sender,
      event_id: `$${room}-${i}`,
      origin_server_ts: t0 + i * 60_000,
      content: { msgtype: 'm.text', body: `message ${i}`, ...(bounce === undefined ? {} : { 'm.bounce_limit': bounce }) },
    },
  });

  it('stamps reply hop limits, holds a slow loop, lets a person release it, and delivers shadow suppresses with wouldHave', async () => {
    const w = world('sdk-bot-policy', {}, 3, {
      botPolicy: { slowLoop: { maxBotMessages: 3, horizonSeconds: 3600 }, humanReset: true, hopLimit: { maxOutgoing: 3 }, channels: { slack: { mode: 'shadow' } } },
    });
    await started(w);
    const dispatcher = await LoopguardDispatcher.connect(clientOptions(w, 'closed'));
    try {
      const t0 = Date.now() - 3_600_000;
      const bot = (i: number, bounce?: unknown) => dispatcher.inbound(matrix('!ops:acme.org', i, '@triage:acme.org', t0, bounce));

      // Hop limits: none carried → maxOutgoing; carried n → n − 1; 1 → suppressed with no cooldown.
      const first = [await bot(0), await bot(1, 2), await bot(2, 9)];
      expect(first.map((v) => [v.deliver, v.replyHopLimit])).toEqual([
        [true, 3],
        [true, 1],
        [true, 3],
      ]);
      const hop = await dispatcher.inbound(matrix('!dev:acme.org', 0, '@triage:acme.org', t0, 1));
      expect(hop).toMatchObject({ deliver: false, reason: 'hop_limit', cooldownUntil: t0, answeredBy: 'loopguard' });

      // The 4th bot message within the horizon trips the slow loop; the next is answered locally.
      const tripped = await bot(3);
      expect(tripped).toMatchObject({ deliver: false, reason: 'slow_loop', cooldownUntil: t0 + 3 * 60_000 + 3_600_000, answeredBy: 'loopguard' });
      expect(tripped.evidence).toMatchObject({ since: t0, count: 4, senders: ['@triage:acme.org'] });
      expect(await bot(4)).toMatchObject({ deliver: false, reason: 'slow_loop', answeredBy: 'local-cooldown', evidence: tripped.evidence });

      // A person writes: published and delivered at once; loopguard is asked again and delivers.
      const person = await dispatcher.inbound(matrix('!ops:acme.org', 5, '@alice:acme.org', t0));
      expect(person).toMatchObject({ deliver: true, reason: 'human_message', answeredBy: 'adapter' });
      expect(await bot(6)).toMatchObject({ deliver: true, answeredBy: 'loopguard', replyHopLimit: 3 });

      // Shadow channel: the would-be suppress is delivered, reported, and never answered locally.
      const slack = (i: number) =>
        dispatcher.inbound({
          channel: 'slack',
          context: { accountId: 'T0ACME', botId: 'B0DEPLOY' },
          payload: { event: { type: 'message', subtype: 'bot_message', channel: 'C0OPS', bot_id: 'B0TRIAGE', ts: ((t0 + i * 60_000) / 1000).toFixed(6) } },
        });
      const shadow = [];
      for (let i = 0; i < 5; i++) shadow.push(await slack(i));
      expect(shadow.every((v) => v.deliver && v.answeredBy === 'loopguard')).toBe(true);
      expect(shadow.map((v) => v.wouldHave?.reason ?? null)).toEqual([null, null, null, 'slow_loop', 'slow_loop']);
      expect(shadow[3]!.wouldHave).toMatchObject({ cooldownUntil: t0 + 3 * 60_000 + 3_600_000, evidence: { count: 4, senders: ['B0TRIAGE'] } });
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
    expect(before).toContain(`loopguard_kafka_client_info{client="${testKafkaClient()}"} 1`);
    expect(run.output()).toContain(`"kafkaClient":"${testKafkaClient()}"`);
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
