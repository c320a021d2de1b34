import { describe, expect, it } from 'vitest';
import { notRunMessage } from '../processors/toolLoop/messages.js';
import { turnVerdicts } from './turns.js';
import { toolFailureVerdict, type ToolVerdict } from './verdicts.js';

const evidence = { since: 1_000, toolCallIds: ['c0', 'c2'] };
const allow = (toolCallId: string): ToolVerdict => ({
  decision: 'allow',
  toolCallId,
  message: null,
  notify: false,
  detector: null,
  count: null,
  evidence: null,
  budget: null,
  wouldHave: null,
  turnBlockedBy: null,
  answeredBy: 'loopguard',
});
const warn = (toolCallId: string): ToolVerdict => ({ ...allow(toolCallId), decision: 'warn', message: 'Warning', notify: true, detector: 'generic_repeat', count: 10 });
const blocked = (toolCallId: string): ToolVerdict => ({
  ...allow(toolCallId),
  decision: 'block',
  message: 'Blocked read',
  notify: true,
  detector: 'generic_repeat',
  count: 20,
  evidence,
});
/** A later call of the turn, as the processor answers it once the turn is blocked. */
const sibling = (toolCallId: string, by: string): ToolVerdict => ({ ...blocked(toolCallId), message: 'Not run', turnBlockedBy: by });

describe('the turn rule: a turn with a blocked call runs none of it', () => {
  it('leaves a turn without a block as it was answered', () => {
    const verdicts = [allow('c1'), warn('c2'), allow('c3')];
    expect(turnVerdicts(['read', 'read', 'exec'], verdicts)).toEqual(verdicts);
  });

  it('blocks the calls decided before the blocked one with its grounds and a note that they did not run', () => {
    const got = turnVerdicts(['exec', 'read', 'read', 'write'], [allow('c1'), warn('c2'), blocked('c3'), sibling('c4', 'c3')]);
    expect(got.map((v) => v.decision)).toEqual(['block', 'block', 'block', 'block']);
    expect(got[0]).toEqual({
      decision: 'block',
      toolCallId: 'c1',
      message: notRunMessage('generic_repeat', 'exec'),
      notify: true,
      detector: 'generic_repeat',
      count: 20,
      evidence,
      budget: null,
      wouldHave: null,
      turnBlockedBy: 'c3',
      answeredBy: 'loopguard',
    });
    expect(got[1]).toMatchObject({ toolCallId: 'c2', message: notRunMessage('generic_repeat', 'read'), turnBlockedBy: 'c3' });
    // The blocked call shows its own message; the processor's answer for the later call stands.
    expect(got[2]).toEqual(blocked('c3'));
    expect(got[3]).toEqual(sibling('c4', 'c3'));
  });

  it('names the first call blocked for itself, not a later one blocked with it', () => {
    const got = turnVerdicts(['read', 'read', 'read'], [allow('c1'), blocked('c2'), sibling('c3', 'c2')]);
    expect(got[0]!.turnBlockedBy).toBe('c2');
  });

  it('blocks the turn when the failure policy blocked a call, saying only that another call was blocked', () => {
    const closed = toolFailureVerdict('closed', 'read', 'c2', 3000);
    const got = turnVerdicts(['exec', 'read'], [allow('c1'), closed]);
    expect(got[0]).toMatchObject({ decision: 'block', detector: null, turnBlockedBy: 'c2', answeredBy: 'fail-closed' });
    expect(got[0]!.message).toMatch(/^\[loopguard\] Not run: "exec" was not executed because another call of the same turn was blocked\./);
    expect(got[1]).toBe(closed);
  });

  it('lets a shadow turn run: a would-be block is an allow', () => {
    const shadow: ToolVerdict = { ...allow('c2'), wouldHave: { decision: 'block', detector: 'generic_repeat', count: 20, message: 'Blocked', evidence, budget: null } };
    expect(turnVerdicts(['read', 'read'], [allow('c1'), shadow])).toEqual([allow('c1'), shadow]);
  });
});
