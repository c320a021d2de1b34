// One file for a gateway and its loop guard: an openclaw.json read by `loopguard run`.
import { describe, expect, it } from 'vitest';
import { resolverFor } from '../processors/toolLoop/config.js';
import { configFrom, openClawPluginConfig } from './config.js';

const gatewayFile = (pluginConfig: Record<string, unknown>, rest: Record<string, unknown> = {}) => ({
  agents: { defaults: { model: { primary: 'fake/scripted-1' } } },
  ...rest,
  plugins: { entries: { loopguard: { enabled: true, config: pluginConfig } } },
});

describe('an OpenClaw gateway file', () => {
  it("switches OpenClaw's in-process detector off and keeps loopguard's on: the plugin's loopDetection replaces tools.loopDetection", () => {
    const c = configFrom(
      gatewayFile({ failure: 'closed', loopDetection: { enabled: true, warningThreshold: 5 } }, { tools: { loopDetection: { enabled: false, warningThreshold: 7 } } }),
    );
    expect(c.toolLoop.global).toEqual({ enabled: true, warningThreshold: 5 });
    expect(resolverFor(c.toolLoop)(undefined)).toMatchObject({ enabled: true, warningThreshold: 5, criticalThreshold: 20 });
  });

  it("without the plugin's loopDetection, the gateway's own block is loopguard's too", () => {
    const c = configFrom(gatewayFile({ failure: 'open' }, { tools: { loopDetection: { enabled: true, criticalThreshold: 12 } } }));
    expect(c.toolLoop.global).toEqual({ enabled: true, criticalThreshold: 12 });
  });

  it('gives the processor the plugin’s brokers, registry, topics and processor settings', () => {
    const c = configFrom(
      gatewayFile({
        failure: 'open',
        brokers: ['kafka-1:9092'],
        schemaRegistryUrl: 'http://registry:8081',
        topics: { toolEvents: 'gw.tool-events' },
        processor: { consumer: { groupId: 'gw' }, toolPolicy: { mode: 'shadow' } },
      }),
    );
    expect(c.settings.kafka.brokers).toEqual(['kafka-1:9092']);
    expect(c.brokersConfigured).toBe(true);
    expect(c.settings.schemaRegistry.url).toBe('http://registry:8081');
    expect(c.topics.toolEvents).toBe('gw.tool-events');
    expect(c.settings.consumer.groupId).toBe('gw');
    expect(c.toolLoop.policy).toMatchObject({ mode: 'shadow' });
  });

  it('an explicit loopguard block wins over the plugin entry', () => {
    const c = configFrom({ ...gatewayFile({ failure: 'open', brokers: ['kafka-1:9092'] }), loopguard: { kafka: { brokers: ['other:9092'] } } });
    expect(c.settings.kafka.brokers).toEqual(['other:9092']);
  });

  it('names no bot senders by default: inbound messages are not guarded', () => {
    expect(openClawPluginConfig({ failure: 'open' }).botSenderIds).toEqual([]);
    expect(openClawPluginConfig({ failure: 'open', botSenderIds: ['U07BOT', 'telegram:84'] }).botSenderIds).toEqual(['U07BOT', 'telegram:84']);
  });

  it.each([
    [{}, 'plugins.entries.loopguard.config.failure'],
    [{ failure: 'sometimes' }, 'plugins.entries.loopguard.config.failure'],
    [{ failure: 'open', timeoutMs: 15_000 }, 'plugins.entries.loopguard.config.timeoutMs'],
    [{ failure: 'open', brokers: ['no-port'] }, 'plugins.entries.loopguard.config.brokers.0'],
    [{ failure: 'open', schemaRegistryUrl: 'ftp://x' }, 'plugins.entries.loopguard.config.schemaRegistryUrl'],
    [{ failure: 'open', sendRaw: 'yes' }, 'plugins.entries.loopguard.config.sendRaw'],
    [{ failure: 'open', loopDetection: { enabled: 'on' } }, 'plugins.entries.loopguard.config.loopDetection.enabled'],
    [{ failure: 'open', processor: { kafka: {} } }, 'plugins.entries.loopguard.config.processor.kafka'],
    [{ failure: 'open', brokerz: [] }, 'plugins.entries.loopguard.config.brokerz'],
    [{ failure: 'open', botSenderIds: 'U07BOT' }, 'plugins.entries.loopguard.config.botSenderIds'],
    [{ failure: 'open', botSenderIds: ['U07BOT', ''] }, 'plugins.entries.loopguard.config.botSenderIds.1'],
  ])('refuses %j naming %s, in the plugin and in the processor alike', (config, key) => {
    expect(() => openClawPluginConfig(config)).toThrow(`config ${key}:`);
    expect(() => configFrom(gatewayFile(config))).toThrow(`config ${key}:`);
  });
});
