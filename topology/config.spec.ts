import { describe, expect, it } from 'vitest';
import { resolveBotLoop } from '../processors/botLoop/config.js';
import { resolveLoopDetection, resolverFor } from '../processors/toolLoop/config.js';
import { configFrom, embeddedStackDir, loadConfig } from './config.js';

const thresholds = (block: object) => {
  const r = resolveLoopDetection(block, undefined);
  return [r.warningThreshold, r.criticalThreshold, r.globalCircuitBreakerThreshold];
};
const invalid = (raw: unknown) => {
  try {
    configFrom(raw);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('config loaded');
};

describe('tools.loopDetection resolution', () => {
  it.each([
    [{}, [10, 20, 30]],
    [{ warningThreshold: 25 }, [25, 26, 30]],
    [{ warningThreshold: 30 }, [30, 31, 32]],
    [{ criticalThreshold: 40 }, [10, 40, 41]],
    [{ globalCircuitBreakerThreshold: 15 }, [10, 20, 21]],
  ])('clamps %j to %j', (block, expected) => {
    expect(thresholds(block)).toEqual(expected);
  });
  it('overwrites the global block field by field with the agent block, one level deep', () => {
    const cfg = configFrom({
      tools: { loopDetection: { enabled: true, historySize: 50, detectors: { pingPong: false, genericRepeat: false }, postCompactionGuard: { windowSize: 4 } } },
      agents: {
        list: [
          { id: 'a', tools: { loopDetection: { historySize: 10, detectors: { genericRepeat: true } } } },
          { id: 'a', tools: { loopDetection: { historySize: 99 } } },
        ],
      },
    });
    const r = resolverFor(cfg.toolLoop)('a');
    expect(r).toMatchObject({
      enabled: true,
      historySize: 10,
      detectors: { pingPong: false, genericRepeat: true, knownPollNoProgress: true },
      postCompactionGuard: { windowSize: 4 },
    });
    expect(resolverFor(cfg.toolLoop)('unknown').historySize).toBe(50);
  });
  it('loads the documented examples unchanged', () => {
    for (const f of ['tool-loop-global', 'tool-loop-agent', 'tool-loop-guard']) expect(() => loadConfig(`examples/config/${f}.json5`, {})).not.toThrow();
    const agent = loadConfig('examples/config/tool-loop-agent.json5', {});
    expect(resolverFor(agent.toolLoop)('safe-runner')).toMatchObject({ enabled: true, warningThreshold: 8, criticalThreshold: 16, globalCircuitBreakerThreshold: 30 });
  });
  it.each([
    [{ tools: { loopDetection: { warningThreshold: 0 } } }, 'tools.loopDetection.warningThreshold'],
    [{ tools: { loopDetection: { historySize: 2.5 } } }, 'tools.loopDetection.historySize'],
    [{ tools: { loopDetection: { enabled: 'yes' } } }, 'tools.loopDetection.enabled'],
    [{ tools: { loopDetection: { detectors: { pingpong: true } } } }, 'tools.loopDetection.detectors.pingpong'],
    [{ tools: { loopDetection: { windowSize: 3 } } }, 'tools.loopDetection.windowSize'],
    [{ tools: { loopDetection: { warningThreshold: 20, criticalThreshold: 20 } } }, 'criticalThreshold'],
    [{ tools: { loopDetection: { criticalThreshold: 30, globalCircuitBreakerThreshold: 25 } } }, 'globalCircuitBreakerThreshold'],
    [{ agents: { list: [{ id: 'x', tools: { loopDetection: { warningThreshold: -1 } } }] } }, 'agents.list.0.tools.loopDetection.warningThreshold'],
    [{ loopguard: { topics: { partitons: 3 } } }, 'loopguard.topics.partitons'],
  ])('refuses %j naming %s', (raw, key) => {
    expect(invalid(raw)).toContain(key);
  });
  it('ignores the rest of a gateway config', () => {
    expect(() =>
      configFrom({
        gateway: { port: 1 },
        tools: { exec: { allow: true } },
        agents: { defaults: {}, list: [{ id: 'x', model: 'm' }] },
        channels: { slack: { token: 't', allowBots: true } },
      }),
    ).not.toThrow();
  });
  it('names a file that cannot be read or parsed', () => {
    expect(() => loadConfig('/nonexistent.json5', {})).toThrow(/nonexistent/);
  });
});

describe('botLoopProtection resolution', () => {
  const layered = loadConfig('examples/config/bot-loop-layers.json5', {});
  it('loads the documented examples and resolves each field to the most specific layer', () => {
    expect(resolveBotLoop(layered.botLoop, 'discord', 'secondary', 'c1')).toMatchObject({ maxEventsPerWindow: 5, cooldownMs: 90_000, windowMs: 60_000 });
    expect(resolveBotLoop(layered.botLoop, 'discord', 'primary', 'c1')).toMatchObject({ maxEventsPerWindow: 8, cooldownMs: 60_000 });
    expect(resolveBotLoop(layered.botLoop, 'googlechat', 'a', 'spaces/AAAA').maxEventsPerWindow).toBe(5);
    expect(resolveBotLoop(layered.botLoop, 'googlechat', 'a', 'spaces/BBBB').maxEventsPerWindow).toBe(20);
    expect(resolveBotLoop(layered.botLoop, 'matrix', 'a', '!roomid:example.org').maxEventsPerWindow).toBe(5);
    expect(resolveBotLoop(layered.botLoop, 'slack', 'a', 'C1').maxEventsPerWindow).toBe(8);
    expect(resolveBotLoop(layered.botLoop, 'telegram', 'a', 'C1')).toMatchObject({
      enabled: true,
      maxEventsPerWindow: 20,
      windowMs: 60_000,
      cooldownMs: 60_000,
      maxConversationBotEvents: undefined,
    });
    expect(() => loadConfig('examples/config/bot-loop-defaults.json5', {})).not.toThrow();
  });
  it('uses channels.defaults only for Feishu and Telegram, with a warning', () => {
    const cfg = configFrom({ channels: { defaults: { botLoopProtection: { maxEventsPerWindow: 7 } }, feishu: { botLoopProtection: { maxEventsPerWindow: 2 } } } });
    expect(resolveBotLoop(cfg.botLoop, 'feishu', 'a', 'c').maxEventsPerWindow).toBe(7);
    expect(cfg.warnings.join()).toContain('channels.feishu');
  });
  it('warns about a Telegram or Feishu block under accounts too, and not about their other settings', () => {
    const quiet = configFrom({ channels: { telegram: { enabled: true, accounts: { main: { token: 'x' } } }, feishu: { accounts: {} } } });
    expect(quiet.warnings).toEqual([]);
    const nested = configFrom({ channels: { telegram: { accounts: { main: { botLoopProtection: { maxEventsPerWindow: 2 } } } } } });
    expect(nested.warnings.join()).toContain('channels.telegram');
  });
  it('has a conversation layer only for Slack, Matrix and Google Chat', () => {
    const cfg = configFrom({
      channels: { slack: { channels: { C9: { botLoopProtection: { windowSeconds: 5 } } } }, discord: { channels: { C9: { botLoopProtection: { windowSeconds: 5 } } } } },
    });
    expect(resolveBotLoop(cfg.botLoop, 'slack', 'a', 'C9').windowMs).toBe(5000);
    expect(resolveBotLoop(cfg.botLoop, 'discord', 'a', 'C9').windowMs).toBe(60_000);
  });
  it.each([
    [{ channels: { defaults: { botLoopProtection: { maxEvents: 3 } } } }, 'channels.defaults.botLoopProtection.maxEvents'],
    [{ channels: { slack: { channels: { C1: { botLoopProtection: { windowSeconds: 0 } } } } } }, 'channels.slack.channels.C1.botLoopProtection.windowSeconds'],
    [{ channels: { discord: { accounts: { x: { botLoopProtection: { enabled: 1 } } } } } }, 'channels.discord.accounts.x.botLoopProtection.enabled'],
    [{ channels: { slack: { botLoopProtection: { maxConversationBotEvents: 501 } } } }, 'channels.slack.botLoopProtection.maxConversationBotEvents'],
    [{ channels: { feishu: { botLoopProtection: { bogus: 1 } } } }, 'channels.feishu.botLoopProtection.bogus'],
  ])('refuses %j naming %s', (raw, key) => {
    expect(invalid(raw)).toContain(key);
  });
});

describe('environment', () => {
  it('lets KAFKA_BROKERS and SCHEMA_REGISTRY_URL override the file', () => {
    const c = configFrom({ loopguard: { kafka: { brokers: ['a:1'] } } }, { KAFKA_BROKERS: 'b:2,c:3', SCHEMA_REGISTRY_URL: 'http://r:1' });
    expect(c.settings.kafka.brokers).toEqual(['b:2', 'c:3']);
    expect(c.settings.schemaRegistry.url).toBe('http://r:1');
  });
  it('knows whether brokers were named, so `start` runs its own Kafka only when none were', () => {
    expect(configFrom({}, {}).brokersConfigured).toBe(false);
    expect(() => configFrom({ loopguard: { kafka: { clientId: 'x' } } }, { KAFKA_BROKERS: ' ' })).toThrow(/env.KAFKA_BROKERS/);
    expect(configFrom({ loopguard: { kafka: { brokers: ['a:1'] } } }, {}).brokersConfigured).toBe(true);
    expect(configFrom({}, { KAFKA_BROKERS: 'b:2' }).brokersConfigured).toBe(true);
  });
  it('keeps the embedded stack in LOOPGUARD_STACK_DIR, else under the user cache', () => {
    expect(embeddedStackDir({ LOOPGUARD_STACK_DIR: '/tmp/s' })).toBe('/tmp/s');
    expect(embeddedStackDir({ XDG_CACHE_HOME: '/c' })).toBe('/c/loopguard/stack');
    expect(embeddedStackDir({})).toMatch(/\.cache\/loopguard\/stack$/);
  });
  it('refuses a bad LOG_LEVEL naming it', () => {
    expect(() => configFrom({}, { LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });
  it('takes the Kafka client from loopguard.kafka.client or LOOPGUARD_KAFKA_CLIENT, kafkajs by default', () => {
    expect(configFrom({}).settings.kafka.client).toBe('kafkajs');
    expect(configFrom({ loopguard: { kafka: { client: 'librdkafka' } } }).settings.kafka.client).toBe('librdkafka');
    expect(configFrom({ loopguard: { kafka: { client: 'kafkajs' } } }, { LOOPGUARD_KAFKA_CLIENT: 'LibRdKafka' }).settings.kafka.client).toBe('librdkafka');
  });
  it('refuses an unknown Kafka client naming the key', () => {
    expect(() => configFrom({ loopguard: { kafka: { client: 'rdkafka' } } })).toThrow(/loopguard\.kafka\.client/);
    expect(() => configFrom({}, { LOOPGUARD_KAFKA_CLIENT: 'java' })).toThrow(/env\.LOOPGUARD_KAFKA_CLIENT/);
  });
  it('accepts LOG_LEVEL in any case', () => {
    expect(configFrom({}, { LOG_LEVEL: 'DEBUG' }).settings.log.level).toBe('debug');
    expect(configFrom({}, { LOG_LEVEL: 'Warn' }).settings.log.level).toBe('warn');
  });
  const refusal = (env: Record<string, string>, raw: unknown = {}) => {
    try {
      configFrom(raw, env);
    } catch (e) {
      return (e as Error).message;
    }
    throw new Error('config loaded');
  };
  it.each([
    [{ SCHEMA_REGISTRY_URL: 'notaurl' }, 'env.SCHEMA_REGISTRY_URL', 'http:// or https://'],
    [{ SCHEMA_REGISTRY_URL: 'localhost:8081' }, 'env.SCHEMA_REGISTRY_URL', 'http:// or https://'],
    [{ SCHEMA_REGISTRY_URL: '' }, 'env.SCHEMA_REGISTRY_URL', 'empty'],
    [{ KAFKA_BROKERS: '' }, 'env.KAFKA_BROKERS', 'empty'],
    [{ KAFKA_BROKERS: ' ' }, 'env.KAFKA_BROKERS', 'empty'],
    [{ KAFKA_BROKERS: 'a:1,' }, 'env.KAFKA_BROKERS', 'host:port'],
    [{ KAFKA_BROKERS: 'kafka' }, 'env.KAFKA_BROKERS', 'host:port'],
    [{ KAFKA_BROKERS: 'kafka:99999' }, 'env.KAFKA_BROKERS', 'host:port'],
    [{ LOG_LEVEL: '' }, 'env.LOG_LEVEL', 'empty'],
    [{ KAFKA_SASL_USERNAME: 'u' }, 'env.KAFKA_SASL_PASSWORD', 'KAFKA_SASL_USERNAME'],
    [{ KAFKA_SASL_PASSWORD: 'p' }, 'env.KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'],
    [{ KAFKA_SASL_MECHANISM: 'plain' }, 'env.KAFKA_SASL_USERNAME', 'KAFKA_SASL_MECHANISM'],
    [{ KAFKA_SASL_MECHANISM: 'gssapi', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' }, 'env.KAFKA_SASL_MECHANISM', 'scram-sha-512'],
    [{ KAFKA_SASL_USERNAME: '', KAFKA_SASL_PASSWORD: 'p' }, 'env.KAFKA_SASL_USERNAME', 'empty'],
  ])('refuses %j naming %s', (env, key, why) => {
    const message = refusal(env);
    expect(message).toContain(key);
    expect(message).toContain(why);
  });
  it.each([
    [{ loopguard: { kafka: { brokers: ['kafka'] } } }, 'loopguard.kafka.brokers'],
    [{ loopguard: { schemaRegistry: { url: 'localhost:8081' } } }, 'loopguard.schemaRegistry.url'],
  ])('refuses %j in the file naming %s', (raw, key) => {
    expect(invalid(raw)).toContain(key);
  });
  it('enables SASL from the environment alone, scram-sha-512 unless a mechanism is given', () => {
    expect(configFrom({}, { KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' }).settings.kafka.sasl).toEqual({ mechanism: 'scram-sha-512', username: 'u', password: 'p' });
    expect(configFrom({}, { KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p', KAFKA_SASL_MECHANISM: 'PLAIN' }).settings.kafka.sasl).toEqual({
      mechanism: 'plain',
      username: 'u',
      password: 'p',
    });
    expect(configFrom({}, {}).settings.kafka.sasl).toBeUndefined();
  });
  it("lets the environment override the file's SASL block field by field", () => {
    const file = { loopguard: { kafka: { sasl: { mechanism: 'scram-sha-256', username: 'fu', password: 'fp' } } } };
    expect(configFrom(file, { KAFKA_SASL_PASSWORD: 'secret' }).settings.kafka.sasl).toEqual({ mechanism: 'scram-sha-256', username: 'fu', password: 'secret' });
    expect(configFrom(file, { KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p', KAFKA_SASL_MECHANISM: 'plain' }).settings.kafka.sasl).toEqual({
      mechanism: 'plain',
      username: 'u',
      password: 'p',
    });
    expect(refusal({ KAFKA_SASL_USERNAME: 'u' }, file)).toContain('env.KAFKA_SASL_PASSWORD');
  });
  it('trims broker lists and accepts IPv6 and https registries', () => {
    const c = configFrom({}, { KAFKA_BROKERS: ' a:1 , [::1]:9092', SCHEMA_REGISTRY_URL: 'https://r.example/apis/ccompat/v7' });
    expect(c.settings.kafka.brokers).toEqual(['a:1', '[::1]:9092']);
    expect(c.settings.schemaRegistry.url).toBe('https://r.example/apis/ccompat/v7');
  });
});
