// Selecting the openclaw profile and keying tool events by session (docs/behaviour.md §6): where
// the keys go, what they refuse, and the start that refuses a changelog kept the other way.
import { describe, expect, it } from 'vitest';
import { resolverFor } from '../processors/toolLoop/config.js';
import { buildTopology } from './build.js';
import { configFrom, OPENCLAW_PLUGIN_ID } from './config.js';
import type { KafkaSession } from './runtime/port.js';
import { checkKeying } from './runtime/startup.js';

const refusal = (raw: unknown) => {
  try {
    configFrom(raw);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('config loaded');
};

describe('tools.loopDetection.profile', () => {
  it('refuses a profile that does not exist, naming the key', () => {
    expect(refusal({ tools: { loopDetection: { profile: 'openclaw-2025' } } })).toMatch(
      /^config tools\.loopDetection\.profile: .*must be one of "openclaw", "early", got "openclaw-2025"/,
    );
    expect(refusal({ agents: { list: [{ id: 'a', tools: { loopDetection: { profile: 'x' } } }] } })).toMatch(/^config agents\.list\.0\.tools\.loopDetection\.profile:/);
  });

  it('applies globally and per agent, an agent’s own overriding', () => {
    const cfg = configFrom({
      tools: { loopDetection: { profile: 'openclaw' } },
      agents: { list: [{ id: 'a', tools: { loopDetection: { warningThreshold: 6 } } }] },
    });
    const resolve = resolverFor(cfg.toolLoop);
    expect(resolve(undefined).profile).toBe('openclaw');
    expect([resolve('a').profile, resolve('a').warningThreshold, resolve('a').criticalThreshold]).toEqual(['openclaw', 6, 20]);
    expect(resolverFor(configFrom({ agents: { list: [{ id: 'b', tools: { loopDetection: { profile: 'openclaw' } } }] } }).toolLoop)(undefined).profile).toBeUndefined();
  });

  it('brings the package’s numbers, thresholds set beside it overriding them', () => {
    const r = resolverFor(
      configFrom({ tools: { loopDetection: { profile: 'openclaw', warningThreshold: 6, criticalThreshold: 10, globalCircuitBreakerThreshold: 16 } } }).toolLoop,
    )(undefined);
    expect([r.warningThreshold, r.criticalThreshold, r.globalCircuitBreakerThreshold, r.unknownToolThreshold, r.historySize, r.postCompactionGuard.windowSize]).toEqual([
      6, 10, 16, 10, 30, 3,
    ]);
  });

  it('is read from the plugin’s entry of a gateway file, and is not selected by the entry alone', () => {
    const gateway = (loopDetection?: object) => ({
      tools: { loopDetection: { enabled: false } },
      plugins: { entries: { [OPENCLAW_PLUGIN_ID]: { config: { failure: 'open', ...(loopDetection ? { loopDetection } : {}), processor: { keyToolEventsBy: 'session' } } } } },
    });
    const selected = configFrom(gateway({ enabled: true, profile: 'openclaw' }));
    expect(resolverFor(selected.toolLoop)(undefined).profile).toBe('openclaw');
    expect(selected.toolLoop.keyBy).toBe('session');
    expect(resolverFor(configFrom(gateway({ enabled: true })).toolLoop)(undefined).profile).toBeUndefined();
  });
});

describe('loopguard.keyToolEventsBy', () => {
  it('keys tool events by run by default, by session when asked, each in a store of its own', () => {
    const [byRun] = buildTopology(configFrom({})).nodes;
    const [bySession] = buildTopology(configFrom({ loopguard: { keyToolEventsBy: 'session' } })).nodes;
    const e = { sessionKey: 's', runId: 'r' };
    expect([byRun!.process.keyOf(e), byRun!.messageKeyOf(e), byRun!.store.changelogTopic]).toEqual(['r', 'r', 'loopguard.tool-loop-runs-changelog']);
    expect([bySession!.process.keyOf(e), bySession!.messageKeyOf(e), bySession!.store.changelogTopic]).toEqual(['s', 's', 'loopguard.tool-loop-sessions-changelog']);
  });

  it('refuses another value, naming the key', () => {
    expect(refusal({ loopguard: { keyToolEventsBy: 'agent' } })).toMatch(/^config loopguard\.keyToolEventsBy:/);
  });

  /** A broker whose topics hold `records` records each. */
  const broker = (topics: Record<string, number>) =>
    ({
      partitionCounts: async (names: readonly string[]) => new Map(names.filter((n) => n in topics).map((n) => [n, 1])),
      watermarks: async (topic: string) => new Map([[0, { low: 0, high: topics[topic] ?? 0 }]]),
    }) as unknown as KafkaSession;

  it('refuses to start on state kept the other way, naming the key and the topic', async () => {
    const bySession = configFrom({ loopguard: { keyToolEventsBy: 'session' } });
    await expect(checkKeying(broker({ 'loopguard.tool-loop-runs-changelog': 3 }), bySession)).rejects.toThrow(
      /^config loopguard\.keyToolEventsBy is "session", but loopguard\.tool-loop-runs-changelog holds tool-loop state kept by run/,
    );
    await expect(checkKeying(broker({ 'loopguard.tool-loop-sessions-changelog': 1 }), configFrom({}))).rejects.toThrow(
      /keyToolEventsBy is "run", but loopguard\.tool-loop-sessions-changelog/,
    );
  });

  it('starts when the other store is absent or empty', async () => {
    const bySession = configFrom({ loopguard: { keyToolEventsBy: 'session' } });
    await expect(checkKeying(broker({}), bySession)).resolves.toBeUndefined();
    await expect(checkKeying(broker({ 'loopguard.tool-loop-runs-changelog': 0 }), bySession)).resolves.toBeUndefined();
  });
});
