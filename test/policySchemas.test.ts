// The policy schema changes (docs/behaviour.md §4.8) against the real schema registry:
// each new schema registers over the one loopguard shipped before it, under the compatibility
// mode its subject uses, and values cross between the two versions.
import { readFileSync } from 'node:fs';
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { botLoopStateCodec, channelEventCodec, decisionCodec, toolEventCodec, toolLoopStateCodec, type StoreEntry, type ValueCodec } from '../schemas/codecs.js';
import type { ConversationState } from '../processors/botLoop/state.js';
import { COMPATIBILITY } from '../schemas/registry.js';
import { session, world } from './helpers/harness.js';

/** A codec of the previous version: the shipped schema, the current value mapping. */
function previous<T>(codec: ValueCodec<T>, file: string, version = 'v1'): ValueCodec<T> {
  const schema = JSON.parse(readFileSync(`schemas/history/${file}.${version}.avsc`, 'utf8')) as avro.Schema;
  return { ...codec, schema, type: avro.Type.forSchema(schema) } as ValueCodec<T>;
}

describe('tool policy schemas over the previous ones', () => {
  it('registers tool events and decisions FULL_TRANSITIVE after their previous versions, and both versions read each other', async () => {
    const w = world('policy-schemas');
    const { catalog } = session(w);
    const events = w.config.topics.toolEvents;
    const oldEvents = previous(toolEventCodec, 'tool-event');
    await catalog.register(events, oldEvents, COMPATIBILITY.FULL_TRANSITIVE);
    const oldBytes = catalog.encode(events, oldEvents, { type: 'tool_outcome', ts: 1, runId: 'r', toolName: 'f', args: {}, error: { name: 'E', message: 'm' } });
    await catalog.register(events, toolEventCodec, COMPATIBILITY.FULL_TRANSITIVE);
    const outcome = { type: 'tool_outcome', ts: 2, runId: 'r', toolName: 'f', args: {}, error: { message: 'm', status: 503, code: 'ECONNRESET' }, transient: true };
    const newBytes = catalog.encode(events, toolEventCodec, outcome);
    expect(await catalog.decode(oldBytes, toolEventCodec)).toEqual({ type: 'tool_outcome', ts: 1, runId: 'r', toolName: 'f', args: {}, error: { name: 'E', message: 'm' } });
    expect(await catalog.decode(newBytes, toolEventCodec)).toEqual(outcome);
    // An old reader drops what it does not know.
    const asOld = oldEvents.type.fromBuffer(newBytes.subarray(5), oldEvents.type.createResolver(toolEventCodec.type)) as Record<string, unknown>;
    expect(asOld.error).toEqual({ name: null, message: 'm' });
    expect(Object.hasOwn(asOld, 'transient')).toBe(false);

    const verdicts = w.config.topics.verdicts;
    await catalog.register(verdicts, previous(decisionCodec, 'decision'), COMPATIBILITY.FULL_TRANSITIVE);
    await catalog.register(verdicts, previous(decisionCodec, 'decision', 'v2'), COMPATIBILITY.FULL_TRANSITIVE);
    await catalog.register(verdicts, previous(decisionCodec, 'decision', 'v3'), COMPATIBILITY.FULL_TRANSITIVE);
    await expect(catalog.register(verdicts, decisionCodec, COMPATIBILITY.FULL_TRANSITIVE)).resolves.toBeGreaterThan(0);
  });
  it('registers channel events FULL_TRANSITIVE after their previous version: human_message travels as a later type both versions read', async () => {
    const w = world('policy-channel');
    const { catalog } = session(w);
    const channel = w.config.topics.channelEvents;
    const oldChannel = previous(channelEventCodec, 'channel-event');
    await catalog.register(channel, oldChannel, COMPATIBILITY.FULL_TRANSITIVE);
    const bot = { type: 'bot_message', ts: 1, channel: 'slack', accountId: 'T', conversationId: 'C', senderId: 'A', receiverId: 'B' };
    const oldBytes = catalog.encode(channel, oldChannel, bot);
    await catalog.register(channel, channelEventCodec, COMPATIBILITY.FULL_TRANSITIVE);
    const human = { type: 'human_message', ts: 2, channel: 'slack', accountId: 'T', conversationId: 'C', senderId: 'U' };
    const newBytes = catalog.encode(channel, channelEventCodec, human);
    expect(await catalog.decode(oldBytes, channelEventCodec)).toEqual(bot);
    expect(await catalog.decode(newBytes, channelEventCodec)).toEqual(human);
  });
  it('registers the tool-loop changelog schema BACKWARD after its previous version', async () => {
    const w = world('policy-state');
    const { catalog } = session(w);
    const changelog = `${w.config.topics.changelogPrefix}tool-loop-changelog`;
    await catalog.register(changelog, previous(toolLoopStateCodec, 'tool-loop-state'), COMPATIBILITY.BACKWARD);
    await expect(catalog.register(changelog, toolLoopStateCodec, COMPATIBILITY.BACKWARD)).resolves.toBeGreaterThan(0);
  });
  it('registers the bot-loop changelog schema BACKWARD after its previous version, and reads a value written with it', async () => {
    const w = world('policy-bot-state');
    const { catalog } = session(w);
    const changelog = `${w.config.topics.changelogPrefix}bot-loop-conversations-changelog`;
    const oldState = previous(botLoopStateCodec, 'bot-loop-state');
    await catalog.register(changelog, oldState, COMPATIBILITY.BACKWARD);
    const pair = { timestamps: [3], cooldown: { start: 2, until: 60_002, evidence: null }, seen: [['m1', 2] as const], streamTime: 3 };
    const state: ConversationState = { pairs: new Map([['A\u0000B', pair]]), receivers: new Map(), slow: null };
    const oldBytes = catalog.encode<StoreEntry<ConversationState>>(changelog, oldState, { offset: 9, state });
    await expect(catalog.register(changelog, botLoopStateCodec, COMPATIBILITY.BACKWARD)).resolves.toBeGreaterThan(0);
    expect(await catalog.decode(oldBytes, botLoopStateCodec)).toEqual({ offset: 9, state });
    const slow = { lastHuman: 5, counted: [[6, 'A'] as const], cooldown: { start: 6, until: 9, evidence: { since: 6, count: 1, senders: ['A'] } }, humanIds: [['h1', 5] as const] };
    const newer = { offset: 10, state: { ...state, slow } };
    expect(await catalog.decode(catalog.encode<StoreEntry<ConversationState>>(changelog, botLoopStateCodec, newer), botLoopStateCodec)).toEqual(newer);
  });
});
