// `loopguard.botPolicy` (docs/behaviour.md §4): loading, errors naming the path, and resolution
// per channel.
import { describe, expect, it } from 'vitest';
import { botPolicyResolver } from '../processors/botLoop/policy.js';
import { configFrom } from './config.js';

const invalid = (raw: unknown) => {
  try {
    configFrom(raw);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('config loaded');
};
const policy = (botPolicy: unknown) => ({ loopguard: { botPolicy } });
const resolve = (botPolicy: unknown) => botPolicyResolver(configFrom(policy(botPolicy)).botLoop.policy);

const EXAMPLE = {
  mode: 'enforce',
  slowLoop: { maxBotMessages: 60, horizonSeconds: 10800 },
  humanReset: true,
  hopLimit: { maxOutgoing: 3 },
  channels: { slack: { mode: 'shadow' } },
};

describe('loopguard.botPolicy loading', () => {
  it('loads the documented example into the bot-loop config', () => {
    expect(configFrom(policy(EXAMPLE)).botLoop.policy).toEqual(EXAMPLE);
  });
  it('leaves the policy out when the block is absent, keeping the botLoopProtection layers', () => {
    const c = configFrom({ channels: { defaults: { botLoopProtection: { maxEventsPerWindow: 7 } } } });
    expect(c.botLoop.policy).toBeUndefined();
    expect(c.botLoop.defaults).toEqual({ maxEventsPerWindow: 7 });
    expect(configFrom({ ...policy({ humanReset: true }), channels: { defaults: { botLoopProtection: { maxEventsPerWindow: 7 } } } }).botLoop.defaults).toEqual({
      maxEventsPerWindow: 7,
    });
  });
  it.each([
    [policy('on'), 'loopguard.botPolicy'],
    [policy({ bogus: 1 }), 'loopguard.botPolicy.bogus'],
    [policy({ mode: 'audit' }), 'loopguard.botPolicy.mode'],
    [policy({ humanReset: 'yes' }), 'loopguard.botPolicy.humanReset'],
    [policy({ slowLoop: { maxBotMessages: 0 } }), 'loopguard.botPolicy.slowLoop.maxBotMessages'],
    [policy({ slowLoop: { maxBotMessages: 2.5 } }), 'loopguard.botPolicy.slowLoop.maxBotMessages'],
    [policy({ slowLoop: { horizonSeconds: -1 } }), 'loopguard.botPolicy.slowLoop.horizonSeconds'],
    [policy({ slowLoop: { horizon: 60 } }), 'loopguard.botPolicy.slowLoop.horizon'],
    [policy({ slowLoop: true }), 'loopguard.botPolicy.slowLoop'],
    [policy({ slowLoop: null }), 'loopguard.botPolicy.slowLoop'],
    [policy({ hopLimit: { maxOutgoing: 0 } }), 'loopguard.botPolicy.hopLimit.maxOutgoing'],
    [policy({ hopLimit: { max: 3 } }), 'loopguard.botPolicy.hopLimit.max'],
    [policy({ channels: { slack: { mode: 'off' } } }), 'loopguard.botPolicy.channels.slack.mode'],
    [policy({ channels: { slack: { channels: {} } } }), 'loopguard.botPolicy.channels.slack.channels'],
    [policy({ channels: { slack: { slowLoop: { maxBotMessages: '5' } } } }), 'loopguard.botPolicy.channels.slack.slowLoop.maxBotMessages'],
    [policy({ channels: { slack: { slowLoop: null } } }), 'loopguard.botPolicy.channels.slack.slowLoop'],
    [policy({ channels: { slack: { hopLimit: false } } }), 'loopguard.botPolicy.channels.slack.hopLimit'],
    [policy({ channels: { slack: { humanReset: 1 } } }), 'loopguard.botPolicy.channels.slack.humanReset'],
    [policy({ channels: ['slack'] }), 'loopguard.botPolicy.channels'],
  ])('refuses %j naming %s', (raw, path) => {
    expect(invalid(raw)).toContain(`config ${path}:`);
  });
});

describe('loopguard.botPolicy resolution for a channel', () => {
  it('defaults to enforce, no slow loop, no human reset, no hop limit', () => {
    const off = { mode: 'enforce', slowLoop: undefined, humanReset: false, hopLimit: undefined };
    expect(botPolicyResolver(undefined)('slack')).toEqual(off);
    expect(resolve({})('slack')).toEqual(off);
  });
  it('fills an empty slowLoop with 60 messages over 10800 s, and an empty hopLimit with maxOutgoing 3', () => {
    expect(resolve({ slowLoop: {}, hopLimit: {} })('x')).toMatchObject({ slowLoop: { maxBotMessages: 60, horizonMs: 10_800_000 }, hopLimit: { maxOutgoing: 3 } });
  });
  it("overwrites the global fields with the channel's; slowLoop and hopLimit replace the global block whole", () => {
    const r = resolve({
      mode: 'shadow',
      humanReset: true,
      slowLoop: { maxBotMessages: 10, horizonSeconds: 600 },
      hopLimit: { maxOutgoing: 5 },
      channels: { slack: { mode: 'enforce', slowLoop: { maxBotMessages: 20 }, hopLimit: {} }, matrix: { humanReset: false } },
    });
    expect(r('slack')).toEqual({ mode: 'enforce', humanReset: true, slowLoop: { maxBotMessages: 20, horizonMs: 10_800_000 }, hopLimit: { maxOutgoing: 3 } });
    expect(r('matrix')).toEqual({ mode: 'shadow', humanReset: false, slowLoop: { maxBotMessages: 10, horizonMs: 600_000 }, hopLimit: { maxOutgoing: 5 } });
    expect(r('discord')).toEqual({ mode: 'shadow', humanReset: true, slowLoop: { maxBotMessages: 10, horizonMs: 600_000 }, hopLimit: { maxOutgoing: 5 } });
  });
  it('lets a channel switch a slow loop or hop limit on, but never off: a channel block without them inherits the global ones', () => {
    const on = resolve({ channels: { slack: { slowLoop: {}, hopLimit: { maxOutgoing: 1 } } } });
    expect(on('slack')).toMatchObject({ slowLoop: { maxBotMessages: 60 }, hopLimit: { maxOutgoing: 1 } });
    expect(on('discord')).toMatchObject({ slowLoop: undefined, hopLimit: undefined });
    const global = resolve({ slowLoop: { maxBotMessages: 9 }, hopLimit: { maxOutgoing: 2 }, channels: { slack: { mode: 'shadow' } } });
    expect(global('slack')).toMatchObject({ slowLoop: { maxBotMessages: 9 }, hopLimit: { maxOutgoing: 2 } });
  });
  it('takes channel names as plain names (constructor, __proto__)', () => {
    const r = resolve({ mode: 'shadow', channels: { constructor: { mode: 'enforce' } } });
    expect(r('constructor').mode).toBe('enforce');
    expect(r('__proto__').mode).toBe('shadow');
    expect(r('toString').mode).toBe('shadow');
  });
});
