// `loopguard.toolPolicy.budgets` and a `tools` entry's `maxCalls` (docs/behaviour.md §5):
// loading, errors naming the key, and resolution per agent.
import JSON5 from 'json5';
import { describe, expect, it } from 'vitest';
import { resolverFor } from '../processors/toolLoop/config.js';
import { configFrom } from './config.js';

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
  budgets: { maxCalls: 200, maxSeconds: 3600 },
  tools: { web_search: { maxCalls: 5 } },
  agents: { researcher: { budgets: { maxCalls: 500 }, tools: { web_search: { maxCalls: 20 } } } },
};

describe('budgets loading', () => {
  it('loads the documented example', () => {
    expect(configFrom(policy(SPEC_EXAMPLE)).toolLoop.policy).toEqual(SPEC_EXAMPLE);
  });
  it.each([[{ maxCalls: 7 }], [{ maxSeconds: 60 }]])('takes either bound alone: %j', (budgets) => {
    expect(configFrom(policy({ budgets })).toolLoop.policy).toEqual({ budgets });
  });
  it.each([
    [policy({ budgets: {} }), 'config loopguard.toolPolicy.budgets: ', 'maxCalls or maxSeconds'],
    [policy({ budgets: null }), 'config loopguard.toolPolicy.budgets: ', ''],
    [policy({ budgets: 100 }), 'config loopguard.toolPolicy.budgets: ', ''],
    [policy({ budgets: { maxCalls: 0 } }), 'config loopguard.toolPolicy.budgets.maxCalls: ', ''],
    [policy({ budgets: { maxCalls: 2.5 } }), 'config loopguard.toolPolicy.budgets.maxCalls: ', ''],
    [policy({ budgets: { maxSeconds: -1 } }), 'config loopguard.toolPolicy.budgets.maxSeconds: ', ''],
    [policy({ budgets: { maxSeconds: '60' } }), 'config loopguard.toolPolicy.budgets.maxSeconds: ', ''],
    [policy({ budgets: { maxCalls: 5, maxTokens: 9 } }), 'config loopguard.toolPolicy.budgets.maxTokens: ', ''],
    [policy({ tools: { web_search: { maxCalls: 0 } } }), 'config loopguard.toolPolicy.tools.web_search.maxCalls: ', ''],
    [policy({ tools: { web_search: { maxCalls: true } } }), 'config loopguard.toolPolicy.tools.web_search.maxCalls: ', ''],
    [policy({ agents: { r: { budgets: {} } } }), 'config loopguard.toolPolicy.agents.r.budgets: ', 'maxCalls or maxSeconds'],
    [policy({ agents: { r: { budgets: { maxSeconds: 0 } } } }), 'config loopguard.toolPolicy.agents.r.budgets.maxSeconds: ', ''],
    [policy({ agents: { r: { tools: { '*': { maxCalls: 1.5 } } } } }), 'config loopguard.toolPolicy.agents.r.tools.*.maxCalls: ', ''],
  ])('refuses %j naming the key', (raw, prefix, says) => {
    const message = invalid(raw);
    expect(message.startsWith(prefix)).toBe(true);
    expect(message).toContain(says);
  });
});

// JSON5 (like JSON.parse) makes `__proto__` an own key; a record must not drop it silently
// (a tool budget or an agent's budgets would then quietly not apply).
describe('a `__proto__` key in toolPolicy', () => {
  const parsed = (text: string): unknown => JSON5.parse(text);
  it.each([
    [`{loopguard: {toolPolicy: {tools: {'__proto__': {maxCalls: 1}}}}}`, 'config loopguard.toolPolicy.tools.__proto__: '],
    [`{loopguard: {toolPolicy: {agents: {'__proto__': {budgets: {maxCalls: 3}}}}}}`, 'config loopguard.toolPolicy.agents.__proto__: '],
    [`{loopguard: {toolPolicy: {agents: {r: {tools: {'__proto__': {maxCalls: 1}}}}}}}`, 'config loopguard.toolPolicy.agents.r.tools.__proto__: '],
  ])('refuses %s naming the key', (text, prefix) => {
    expect(invalid(parsed(text))).toContain(prefix);
  });
  it('still loads other names of Object.prototype as ordinary keys', () => {
    const r = resolverFor(configFrom(parsed(`{loopguard: {toolPolicy: {tools: {constructor: {maxCalls: 1}}, agents: {toString: {budgets: {maxCalls: 3}}}}}}`)).toolLoop);
    expect(r(undefined).policy.selectTool('constructor')).toEqual(['constructor', { maxCalls: 1 }]);
    expect(r('toString').policy.budgets).toEqual({ maxCalls: 3 });
  });
});

describe('budgets resolution per agent', () => {
  const resolve = resolverFor(configFrom(policy(SPEC_EXAMPLE)).toolLoop);
  it('uses the global budgets until a run names an agent, and for agents without a block', () => {
    expect(resolve(undefined).policy.budgets).toEqual({ maxCalls: 200, maxSeconds: 3600 });
    expect(resolve('other').policy.budgets).toEqual({ maxCalls: 200, maxSeconds: 3600 });
    expect(resolve(undefined).policy.toolEntry('web_search')?.maxCalls).toBe(5);
  });
  it('overwrites budgets field by field, one level deep, and tool entries key by key', () => {
    expect(resolve('researcher').policy.budgets).toEqual({ maxCalls: 500, maxSeconds: 3600 });
    expect(resolve('researcher').policy.selectTool('web_search')).toEqual(['web_search', { maxCalls: 20 }]);
  });
  it('lets an agent add budgets when the global policy has none', () => {
    const r = resolverFor(configFrom(policy({ agents: { a: { budgets: { maxSeconds: 9 } } } })).toolLoop);
    expect(r(undefined).policy.budgets).toBeUndefined();
    expect(r('a').policy.budgets).toEqual({ maxSeconds: 9 });
  });
  it('selects the key of the entry a call uses: an exact name over a pattern', () => {
    const r = resolverFor(configFrom(policy({ tools: { 'web_*': { maxCalls: 3 }, web_fetch: { exempt: true } } })).toolLoop);
    expect(r(undefined).policy.selectTool('web_search')?.[0]).toBe('web_*');
    expect(r(undefined).policy.selectTool('web_fetch')?.[0]).toBe('web_fetch');
    expect(r(undefined).policy.selectTool('read')).toBeUndefined();
  });
});
