import { describe, expect, it } from 'vitest';
import type { BotDecision } from '../processors/botLoop/react.js';
import type { RunAbort, ToolDecision } from '../processors/toolLoop/react.js';
import { abortedVerdict, abortNoticeOf, adapterVerdict, failureVerdict, inboundVerdictOf, toolVerdictOf } from './verdicts.js';

const evidence = { since: 1_000, toolCallIds: ['c1', 'c2', 'c3'] };

const toolDecision = (over: Partial<ToolDecision>): ToolDecision => ({
  type: 'tool_decision',
  key: 'run-1',
  sessionKey: 's',
  runId: 'run-1',
  ts: 5_000,
  toolCallId: 'c4',
  toolName: 'read',
  decision: 'allow',
  detector: null,
  level: null,
  count: null,
  message: null,
  pairedToolName: null,
  notify: null,
  shadow: null,
  evidence: null,
  turnBlockedBy: null,
  ...over,
});

const block = { decision: 'block', detector: 'generic_repeat', level: 'critical', count: 20, message: 'Blocked read', notify: true, evidence } as const;
const warn = { decision: 'warn', detector: 'generic_repeat', level: 'warning', count: 10, message: 'Warning: read', notify: true, evidence } as const;

describe('tool decision → verdict', () => {
  it('gives an enforced block as a block with its evidence and no wouldHave', () => {
    expect(toolVerdictOf(toolDecision(block), 'c4')).toEqual({
      decision: 'block',
      toolCallId: 'c4',
      message: 'Blocked read',
      notify: true,
      detector: 'generic_repeat',
      count: 20,
      evidence,
      budget: null,
      wouldHave: null,
      turnBlockedBy: null,
      answeredBy: 'loopguard',
    });
  });
  it('allows a shadow block and reports it as wouldHave', () => {
    expect(toolVerdictOf(toolDecision({ ...block, shadow: true }), 'c4')).toEqual({
      decision: 'allow',
      toolCallId: 'c4',
      message: null,
      notify: false,
      detector: null,
      count: null,
      evidence: null,
      budget: null,
      wouldHave: { decision: 'block', detector: 'generic_repeat', count: 20, message: 'Blocked read', evidence, budget: null },
      turnBlockedBy: null,
      answeredBy: 'loopguard',
    });
  });
  it('allows a shadow warning without notifying the model', () => {
    const v = toolVerdictOf(toolDecision({ ...warn, shadow: true }), 'c4');
    expect(v).toMatchObject({ decision: 'allow', notify: false, message: null, wouldHave: { decision: 'warn', count: 10, message: 'Warning: read' } });
  });
  it('gives a shadow allow as a plain allow', () => {
    expect(toolVerdictOf(toolDecision({ shadow: true }), 'c4')).toMatchObject({ decision: 'allow', wouldHave: null });
  });
  it('gives an enforced warning as a warning, with notify only when the decision says so', () => {
    expect(toolVerdictOf(toolDecision(warn), 'c4')).toMatchObject({ decision: 'warn', notify: true, wouldHave: null });
    expect(toolVerdictOf(toolDecision({ ...warn, notify: null }), 'c4')).toMatchObject({ decision: 'warn', notify: false });
  });
  it('names the call whose block kept a call of its turn from running', () => {
    expect(toolVerdictOf(toolDecision({ ...block, turnBlockedBy: 'c2' }), 'c4')).toMatchObject({ decision: 'block', turnBlockedBy: 'c2' });
    expect(toolVerdictOf(toolDecision(block), 'c4').turnBlockedBy).toBeNull();
  });
  it('gives a block without evidence (an answer from before evidence) evidence null', () => {
    expect(toolVerdictOf(toolDecision({ ...block, evidence: null }), 'c4').evidence).toBeNull();
  });
});

describe('run abort → notice and the run’s later calls', () => {
  const abort: RunAbort = {
    type: 'run_abort',
    key: 'run-1',
    sessionKey: 's',
    runId: 'run-1',
    ts: 5_000,
    detector: 'block_escalation',
    count: 3,
    toolName: 'read',
    message: 'Run ended',
    shadow: null,
    evidence,
  };
  it('names the detector, count and evidence of an escalation', () => {
    expect(abortNoticeOf(abort)).toEqual({ runKey: 'run-1', detector: 'block_escalation', toolName: 'read', count: 3, message: 'Run ended', evidence });
  });
  it('blocks later calls locally with the abort’s detector, count and evidence', () => {
    expect(abortedVerdict(abortNoticeOf(abort), 'c9')).toEqual({
      decision: 'block',
      toolCallId: 'c9',
      message: 'Run ended',
      notify: true,
      detector: 'block_escalation',
      count: 3,
      evidence,
      budget: null,
      wouldHave: null,
      turnBlockedBy: null,
      answeredBy: 'run-aborted',
    });
  });
});

const botDecision = (over: Partial<BotDecision>): BotDecision => ({
  type: 'bot_decision',
  key: '["matrix","a","!r","@x","@y"]',
  channel: 'matrix',
  accountId: 'a',
  conversationId: '!r',
  senderId: '@x',
  receiverId: '@y',
  eventId: '$1',
  ts: 10_000,
  decision: 'deliver',
  cooldownUntil: null,
  reason: null,
  shadow: null,
  evidence: null,
  replyHopLimit: null,
  ...over,
});
const botEvidence = { since: 4_000, count: 21, senders: ['@x', '@y'] };
const suppress = { decision: 'suppress', reason: 'pair_budget', cooldownUntil: 70_000, evidence: botEvidence } as const;

describe('bot decision → inbound verdict', () => {
  it('drops an enforced suppress, with its reason, cooldown and evidence', () => {
    expect(inboundVerdictOf(botDecision(suppress))).toEqual({
      deliver: false,
      reason: 'pair_budget',
      cooldownUntil: 70_000,
      evidence: botEvidence,
      wouldHave: null,
      replyHopLimit: null,
      answeredBy: 'loopguard',
    });
  });
  it('delivers a shadow suppress and reports it as wouldHave', () => {
    expect(inboundVerdictOf(botDecision({ ...suppress, reason: 'slow_loop', shadow: true }))).toEqual({
      deliver: true,
      reason: null,
      cooldownUntil: null,
      evidence: null,
      wouldHave: { reason: 'slow_loop', cooldownUntil: 70_000, evidence: botEvidence },
      replyHopLimit: null,
      answeredBy: 'loopguard',
    });
  });
  it('returns the reply hop limit with a deliver, including 0', () => {
    expect(inboundVerdictOf(botDecision({ replyHopLimit: 2 }))).toMatchObject({ deliver: true, replyHopLimit: 2 });
    expect(inboundVerdictOf(botDecision({ replyHopLimit: 0 }))).toMatchObject({ deliver: true, replyHopLimit: 0 });
  });
  it('returns the reply hop limit with a shadow hop_limit suppress, which delivers', () => {
    const d = botDecision({
      decision: 'suppress',
      reason: 'hop_limit',
      cooldownUntil: 10_000,
      shadow: true,
      replyHopLimit: 0,
      evidence: { since: 10_000, count: 1, senders: ['@x'] },
    });
    expect(inboundVerdictOf(d)).toMatchObject({ deliver: true, replyHopLimit: 0, wouldHave: { reason: 'hop_limit', cooldownUntil: 10_000 } });
  });
  it('gives no reply hop limit when none is configured', () => {
    expect(inboundVerdictOf(botDecision({})).replyHopLimit).toBeNull();
  });
  it('delivers what needs no decision, and answers a timeout by the failure policy', () => {
    expect(adapterVerdict('human_message')).toMatchObject({ deliver: true, reason: 'human_message', answeredBy: 'adapter', replyHopLimit: null });
    expect(failureVerdict('open')).toMatchObject({ deliver: true, answeredBy: 'fail-open' });
    expect(failureVerdict('closed')).toMatchObject({ deliver: false, answeredBy: 'fail-closed' });
  });
});
