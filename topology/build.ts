// buildTopology(config): the two processors, their input topics, stores and changelogs.
import { botLoopProcess, BOT_LOOP, CHANNEL_EVENT_TYPES, channelMessageKeyOf, parseChannelEvent, type ChannelEvent } from '../processors/botLoop/index.js';
import { parseToolEvent, runKeyOf, toolLoopProcess, TOOL_EVENT_TYPES, TOOL_LOOP, type ToolEvent } from '../processors/toolLoop/index.js';
import { botLoopStateCodec, channelEventCodec, decisionCodec, toolEventCodec, toolLoopStateCodec } from '../schemas/codecs.js';
import type { LoopguardConfig } from './config.js';
import { makeTopology, type ProcessorNode, type TopicNames, type Topology } from './topology.js';

const changelog = (topics: TopicNames, store: string) => `${topics.changelogPrefix}${store}-changelog`;

export function toolLoopNode(config: LoopguardConfig): ProcessorNode<ToolEvent> {
  const store = 'tool-loop-runs';
  return {
    name: TOOL_LOOP,
    process: toolLoopProcess(config.toolLoop),
    inputTopic: config.topics.toolEvents,
    eventTypes: TOOL_EVENT_TYPES,
    parse: parseToolEvent,
    eventIdOf: (e: ToolEvent) => e.eventId,
    messageKeyOf: runKeyOf,
    store: { name: store, changelogTopic: changelog(config.topics, store) },
    codecs: { input: toolEventCodec, state: toolLoopStateCodec, output: decisionCodec },
  };
}

export function botLoopNode(config: LoopguardConfig): ProcessorNode<ChannelEvent> {
  const store = 'bot-loop-conversations';
  return {
    name: BOT_LOOP,
    process: botLoopProcess(config.botLoop),
    inputTopic: config.topics.channelEvents,
    eventTypes: CHANNEL_EVENT_TYPES,
    parse: parseChannelEvent,
    eventIdOf: (e: ChannelEvent) => e.eventId,
    messageKeyOf: channelMessageKeyOf,
    store: { name: store, changelogTopic: changelog(config.topics, store) },
    codecs: { input: channelEventCodec, state: botLoopStateCodec, output: decisionCodec },
  };
}

export function buildTopology(config: LoopguardConfig): Topology {
  return makeTopology([toolLoopNode(config), botLoopNode(config)], config.topics, { maxFutureSkewMs: config.settings.maxFutureSkewSeconds * 1000 });
}
