// `loopguard.toolPolicy` (docs/behaviour.md §4): loading, resolution per run, and the ids of
// the two decisions an escalating call gets.
import { describe, expect, it } from 'vitest';
import { resolverFor } from '../processors/toolLoop/config.js';
import { buildTopology } from './build.js';
import { configFrom } from './config.js';
import { InMemoryDriver } from './testing/driver.js';

const invalid = (raw: unknown) => {
  try {
    configFrom(raw);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('config loaded');
};
const policy = (toolPolicy: unknown) => ({ loopguard: { toolPolicy } });

const SPEC_EXAMPLE = {
  loopguard: {
    toolPolicy: {
      mode: 'enforce',
      escalation: { abortAfterBlocks: 5 },
      transientErrors: true,
      tools: { 'mcp__*__read_output': { exempt: true }, wait_for_job: { poll: true }, exec: { warningThreshold: 15, criticalThreshold: 30 } },
      agents: { 'safe-runner': { mode: 'shadow', tools: { exec: { exempt: true } } } },
    },
    botPolicy: {
      mode: 'enforce',
      slowLoop: { maxBotMessages: 60, horizonSeconds: 10800 },
      humanReset: true,
      hopLimit: { maxOutgoing: 3 },
      channels: { slack: { mode: 'shadow' } },
    },
  },
};

describe('loopguard.toolPolicy loading', () => {
  it('loads the documented example, next to a valid botPolicy block', () => {
    const c = configFrom(SPEC_EXAMPLE);
    expect(c.toolLoop.policy).toEqual(SPEC_EXAMPLE.loopguard.toolPolicy);
    expect(Object.keys(c.toolLoop.policy?.tools ?? {})).toEqual(['mcp__*__read_output', 'wait_for_job', 'exec']);
  });
  it('leaves the policy out when the block is absent', () => {
    expect(configFrom({}).toolLoop.policy).toBeUndefined();
  });
  it.each([
    [policy({ bogus: 1 }), 'loopguard.toolPolicy.bogus'],
    [policy({ mode: 'audit' }), 'loopguard.toolPolicy.mode'],
    [policy({ escalation: {} }), 'loopguard.toolPolicy.escalation.abortAfterBlocks'],
    [policy({ escalation: { abortAfterBlocks: 0 } }), 'loopguard.toolPolicy.escalation.abortAfterBlocks'],
    [policy({ escalation: { abortAfterBlocks: 2.5 } }), 'loopguard.toolPolicy.escalation.abortAfterBlocks'],
    [policy({ escalation: { abortAfterBlocks: 3, after: 1 } }), 'loopguard.toolPolicy.escalation.after'],
    [policy({ escalation: null }), 'loopguard.toolPolicy.escalation'],
    [policy({ transientErrors: 'yes' }), 'loopguard.toolPolicy.transientErrors'],
    [policy({ tools: { exec: { exempt: 1 } } }), 'loopguard.toolPolicy.tools.exec.exempt'],
    [policy({ tools: { exec: { poll: 'true' } } }), 'loopguard.toolPolicy.tools.exec.poll'],
    [policy({ tools: { exec: { warningThreshold: -1 } } }), 'loopguard.toolPolicy.tools.exec.warningThreshold'],
    [policy({ tools: { exec: { warningThreshold: 15, criticalThreshold: 15 } } }), 'loopguard.toolPolicy.tools.exec.criticalThreshold'],
    [policy({ tools: { exec: { warningThreshold: 16, criticalThreshold: 15 } } }), 'warningThreshold (16) must be lower than criticalThreshold (15)'],
    [policy({ tools: { exec: { warn: 1 } } }), 'loopguard.toolPolicy.tools.exec.warn'],
    [policy({ tools: ['exec'] }), 'loopguard.toolPolicy.tools'],
    [policy({ agents: { a: { mode: 'off' } } }), 'loopguard.toolPolicy.agents.a.mode'],
    [policy({ agents: { a: { agents: {} } } }), 'loopguard.toolPolicy.agents.a.agents'],
    [policy({ agents: { a: { escalation: {} } } }), 'loopguard.toolPolicy.agents.a.escalation.abortAfterBlocks'],
    [policy({ agents: { a: { tools: { x: { warningThreshold: 5, criticalThreshold: 4 } } } } }), 'loopguard.toolPolicy.agents.a.tools.x.criticalThreshold'],
    [{ loopguard: { botPolicy: 'on' } }, 'loopguard.botPolicy'],
  ])('refuses %j naming %s', (raw, what) => {
    expect(invalid(raw)).toContain(what);
  });
  it('accepts a tools entry that sets one threshold, or both in order', () => {
    expect(() => configFrom(policy({ tools: { a: { warningThreshold: 40 }, b: { criticalThreshold: 2 }, c: { warningThreshold: 14, criticalThreshold: 15 } } }))).not.toThrow();
  });
});

describe('loopguard.toolPolicy resolution for a run', () => {
  const resolve = (toolPolicy: unknown) => resolverFor(configFrom(policy(toolPolicy)).toolLoop);
  it('defaults to enforce, no escalation, transient errors counted, no tool entries', () => {
    const p = resolve({})(undefined).policy;
    expect(p).toMatchObject({ mode: 'enforce', abortAfterBlocks: undefined, transientErrors: false });
    expect(p.toolEntry('exec')).toBeUndefined();
    expect(resolverFor(configFrom({}).toolLoop)('x').policy.mode).toBe('enforce');
  });
  it("overwrites the global fields with the agent's, field by field", () => {
    const r = resolve({
      mode: 'shadow',
      transientErrors: true,
      escalation: { abortAfterBlocks: 5 },
      agents: { a: { mode: 'enforce' }, b: { transientErrors: false, escalation: { abortAfterBlocks: 2 } } },
    });
    expect(r('a').policy).toMatchObject({ mode: 'enforce', transientErrors: true, abortAfterBlocks: 5 });
    expect(r('b').policy).toMatchObject({ mode: 'shadow', transientErrors: false, abortAfterBlocks: 2 });
    expect(r('c').policy).toMatchObject({ mode: 'shadow', transientErrors: true, abortAfterBlocks: 5 });
    expect(r(undefined).policy).toMatchObject({ mode: 'shadow', abortAfterBlocks: 5 });
  });
  it('lets an agent switch escalation on, and change the number of a global one, but never off', () => {
    const r = resolve({ agents: { a: { escalation: { abortAfterBlocks: 4 } }, b: {} } });
    expect(r('a').policy.abortAfterBlocks).toBe(4);
    expect(r('b').policy.abortAfterBlocks).toBeUndefined();
    expect(resolve({ escalation: { abortAfterBlocks: 3 }, agents: { b: { mode: 'shadow' } } })('b').policy.abortAfterBlocks).toBe(3);
  });
  it("merges the tools maps key by key: the agent's fields over the same key's", () => {
    const r = resolve({
      tools: { exec: { poll: true, warningThreshold: 15, criticalThreshold: 30 } },
      agents: { a: { tools: { exec: { criticalThreshold: 40 }, read: { exempt: true } } } },
    });
    expect(r('a').policy.toolEntry('exec')).toEqual({ poll: true, warningThreshold: 15, criticalThreshold: 40 });
    expect(r('a').policy.toolEntry('read')).toEqual({ exempt: true });
    expect(r(undefined).policy.toolEntry('read')).toBeUndefined();
  });
  it('keeps the loop detection of an agent that only has a tool policy at the global values', () => {
    const c = configFrom({ tools: { loopDetection: { enabled: true, warningThreshold: 7 } }, ...policy({ agents: { a: { mode: 'shadow' } } }) });
    expect(resolverFor(c.toolLoop)('a')).toMatchObject({ enabled: true, warningThreshold: 7, policy: { mode: 'shadow' } });
  });
});

describe('decision ids of an escalating call', () => {
  it('gives the run_abort its own deterministic id next to the tool_decision, the same on every replay', () => {
    const config = configFrom({ tools: { loopDetection: { enabled: true } }, ...policy({ escalation: { abortAfterBlocks: 1 } }) });
    const run = () => {
      const driver = new InMemoryDriver(buildTopology(config), 3);
      const out: string[][] = [];
      for (let i = 0; i < 21; i++) {
        const r = driver.pipe({ type: 'tool_call', ts: 2 * i, runId: 'r', toolName: 'read', args: { p: 1 }, eventId: `c${i}` });
        driver.pipe({ type: 'tool_outcome', ts: 2 * i + 1, runId: 'r', toolName: 'read', args: { p: 1 }, result: 'same', eventId: `o${i}` });
        out.push(r.ok ? r.decisions.map((d) => d.id) : []);
      }
      return out;
    };
    const ids = run();
    expect(ids[20]).toEqual(['tool-loop/r/c20/tool_decision', 'tool-loop/r/c20/run_abort/1']);
    expect(run()).toEqual(ids);
  });
});
