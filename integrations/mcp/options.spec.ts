import { describe, expect, it } from 'vitest';
import { configFrom } from '../../topology/config.js';
import { sessionKeyOf } from './identity.js';
import { configLoopKeys, runnerOptionsOf, upstreamOf } from './options.js';

describe('mcp-proxy options', () => {
  it('connects as every command does: brokers, registry, TLS/SASL and the Kafka client from config and env, topics', () => {
    const config = configFrom(
      { loopguard: { kafka: { ssl: true }, topics: { toolEvents: 'team.tool-events' } } },
      { KAFKA_BROKERS: 'k1:9092,k2:9092', SCHEMA_REGISTRY_URL: 'http://registry:8081', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p', LOOPGUARD_KAFKA_CLIENT: 'librdkafka' },
    );
    const opts = runnerOptionsOf(config, { failure: 'closed', timeoutMs: 500, sendRaw: false });
    expect(opts).toMatchObject({
      brokers: ['k1:9092', 'k2:9092'],
      schemaRegistryUrl: 'http://registry:8081',
      ssl: true,
      sasl: { mechanism: 'scram-sha-512', username: 'u', password: 'p' },
      kafkaClient: 'librdkafka',
      failure: 'closed',
      timeoutMs: 500,
      sendRaw: false,
    });
    expect(opts.topics).toEqual(config.topics);
    expect(opts.topics?.toolEvents).toBe('team.tool-events');
  });
  it('hashes for the rule set the session’s agent follows, and restricts arguments to the config’s loopKeys for that agent', () => {
    const config = configFrom({
      tools: { loopDetection: { profile: 'early' } },
      agents: { list: [{ id: 'legacy', tools: { loopDetection: { profile: 'openclaw' } } }] },
      loopguard: { toolPolicy: { tools: { 'web_*': { loopKey: ['query'] } }, agents: { legacy: { tools: { web_search: { loopKey: false } } } } } },
    });
    expect(runnerOptionsOf(config, { failure: 'open', timeoutMs: 2000, sendRaw: false }).profile).toBe('early');
    expect(runnerOptionsOf(config, { failure: 'open', timeoutMs: 2000, sendRaw: false, agent: 'legacy' }).profile).toBe('openclaw');
    expect(runnerOptionsOf(configFrom({}), { failure: 'open', timeoutMs: 2000, sendRaw: false })).not.toHaveProperty('profile');
    expect(configLoopKeys(config, undefined)?.('web_search')).toEqual(['query']);
    expect(configLoopKeys(config, 'legacy')?.('web_search')).toBe(false);
    expect(configLoopKeys(configFrom({}), undefined)).toBeUndefined();
  });
  it('leaves SASL out when none is configured', () => {
    expect(runnerOptionsOf(configFrom({}), { failure: 'open', timeoutMs: 2000, sendRaw: true })).not.toHaveProperty('sasl');
  });
  it('takes the server command and its arguments as given after --', () => {
    expect(upstreamOf(['npx', '-y', '@modelcontextprotocol/server-filesystem', '--', '/p'])).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '--', '/p'],
    });
  });
  it('refuses an empty server command, saying where it goes', () => {
    expect(() => upstreamOf([])).toThrow(/give the MCP server to start after --/);
    expect(() => upstreamOf([' '])).toThrow(/give the MCP server to start after --/);
  });
  it("derives the session key from the client's name", () => {
    expect(sessionKeyOf({ name: 'claude-ai' })).toBe('mcp:claude-ai');
    expect(sessionKeyOf({ name: '  ' })).toBe('mcp:client');
    expect(sessionKeyOf(undefined)).toBe('mcp:client');
  });
});
