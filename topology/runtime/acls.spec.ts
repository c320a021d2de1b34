// The ACLs the README gives a cluster admin are the ones the secured stack applies (and the
// integration tests run under), and they name the topics, groups and transactional ids loopguard
// really uses.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TENANTS, aclCommands, tenantTopics } from '../../scripts/stack/secure.mjs';
import { configFrom } from '../config.js';
import { buildTopology } from '../build.js';
import { DEFAULT_TOPICS } from '../topology.js';
import { readerGroupId } from './groups.js';

const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
const [defaultTenant] = TENANTS;

describe("the README's ACLs", () => {
  it('are, line for line, the kafka-acls commands the secured stack runs for the default tenant', () => {
    const documented = README.split('\n')
      .filter((l) => l.startsWith('$ACLS '))
      .map((l) => l.slice('$ACLS '.length).split(/\s+/));
    expect(documented).toEqual(aclCommands(defaultTenant!));
  });

  it("name loopguard's default topics, changelogs and group", () => {
    const topology = buildTopology(configFrom({}));
    const t = tenantTopics(defaultTenant!.prefix);
    expect({ toolEvents: t.toolEvents, channelEvents: t.channelEvents, verdicts: t.verdicts, deadLetter: t.deadLetter }).toEqual({
      toolEvents: DEFAULT_TOPICS.toolEvents,
      channelEvents: DEFAULT_TOPICS.channelEvents,
      verdicts: DEFAULT_TOPICS.verdicts,
      deadLetter: DEFAULT_TOPICS.deadLetter,
    });
    expect(t.changelogs).toEqual(topology.nodes.map((n) => n.store.changelogTopic));
    expect(defaultTenant!.group).toBe(configFrom({}).settings.consumer.groupId);
  });

  it("grant every reader's group by the prefix its name starts with", () => {
    const granted = aclCommands(defaultTenant!)
      .filter((c) => c.includes('prefixed'))
      .flatMap((c) => c.flatMap((a, i) => (c[i - 1] === '--group' ? [a] : [])));
    for (const [topic, role] of [
      [DEFAULT_TOPICS.verdicts, 'reader'],
      [DEFAULT_TOPICS.verdicts, 'tail'],
      [DEFAULT_TOPICS.verdicts, 'console'],
      ...tenantTopics(defaultTenant!.prefix).changelogs.map((c) => [c, 'restore'] as const),
    ] as const)
      expect(granted.some((g) => readerGroupId(topic, role).startsWith(g))).toBe(true);
  });
});
