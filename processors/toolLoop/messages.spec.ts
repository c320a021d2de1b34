// What the model is told (docs/behaviour.md §1 "Decisions"). Its wording may change, but a warning
// must not tell the model it was blocked, nor a block that it was only warned: checked for each
// detector that can do either.
import { describe, expect, it } from 'vitest';
import { verdictMessage } from './messages.js';
import { DETECTORS } from './state.js';

describe('verdictMessage', () => {
  it.each([DETECTORS.knownPollNoProgress, DETECTORS.pingPong, DETECTORS.genericRepeat])('tells a %s warning as a warning and its block as a block', (detector) => {
    const warn = verdictMessage(detector, 'warn', 'read', 10, 'write');
    const block = verdictMessage(detector, 'block', 'read', 20, 'write');
    expect(warn).toMatch(new RegExp(`^\\[loopguard ${detector}\\] Warning: `));
    expect(warn).toContain('10');
    expect(block).toMatch(new RegExp(`^\\[loopguard ${detector}\\] Blocked: `));
    expect(block).toContain('20');
  });
});
