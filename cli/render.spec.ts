// How `tail` and `demo` read a decision: shadow decisions say what they would have done,
// and a decision that acts shows its evidence.
import { describe, expect, it } from 'vitest';
import type { Decision } from '../topology/topology.js';
import { formatDecision, formatEvidence, summarise } from './render.js';

const source = { topic: 't', partition: 0, offset: 0 };
const T = Date.UTC(2026, 0, 5, 9, 0, 0);
const tool = (over: Record<string, unknown>) =>
  ({
    type: 'tool_decision',
    id: 'd',
    source,
    key: 'r1',
    ts: T,
    toolName: 'read',
    decision: 'block',
    detector: 'generic_repeat',
    count: 20,
    notify: true,
    message: 'm',
    shadow: null,
    evidence: null,
    ...over,
  }) as unknown as Decision;
const bot = (over: Record<string, unknown>) =>
  ({
    type: 'bot_decision',
    id: 'b',
    source,
    key: 'k',
    ts: T,
    channel: 'slack',
    accountId: 'T1',
    conversationId: 'C1',
    senderId: 'B2',
    receiverId: 'B1',
    eventId: null,
    decision: 'suppress',
    cooldownUntil: T + 60_000,
    reason: 'pair_budget',
    shadow: null,
    evidence: null,
    replyHopLimit: null,
    ...over,
  }) as unknown as Decision;

describe('formatEvidence', () => {
  it('names the first event time, the calls, or the messages and their senders', () => {
    expect(formatEvidence({ since: T, toolCallIds: ['c1', 'c2'] })).toBe('since 09:00:00Z, calls c1, c2');
    expect(formatEvidence({ since: T, toolCallIds: ['c1', 'c2', 'c3', 'c4'] })).toBe('since 09:00:00Z, 4 calls c1 … c4');
    expect(formatEvidence({ since: T, count: 21, senders: ['B1', 'B2'] })).toBe('since 09:00:00Z, 21 messages from B1, B2');
    expect(formatEvidence({ since: T, count: 1, senders: ['B2'] })).toBe('since 09:00:00Z, 1 message from B2');
    expect(formatEvidence(null)).toBe('');
  });
});

describe('a decision as tail prints it', () => {
  it('marks a shadow block as what would have happened, obeyed as allow', () => {
    const line = formatDecision(tool({ shadow: true, evidence: { since: T, toolCallIds: ['c1'] } }));
    expect(line).toContain('WOULD BLOCK');
    expect(line).toContain('(since 09:00:00Z, calls c1)');
    expect(line).toMatch(/\[shadow: obeyed as allow\]$/);
    expect(summarise(tool({ shadow: true, decision: 'allow', detector: null })).verdict).toBe('allow');
  });
  it('shows an enforced suppress with its evidence and the reply hop limit, without a shadow mark', () => {
    const line = formatDecision(bot({ evidence: { since: T, count: 21, senders: ['B1', 'B2'] }, replyHopLimit: 2 }));
    expect(line).toContain('SUPPRESS');
    expect(line).toContain('pair_budget, cooldown until 09:01:00Z');
    expect(line).toContain('(since 09:00:00Z, 21 messages from B1, B2) replyHopLimit=2');
    expect(line).not.toContain('shadow');
    expect(formatDecision(bot({ shadow: true }))).toMatch(/WOULD SUPPRESS .*\[shadow: obeyed as deliver\]$/);
  });
});
