// buildTopology(config): the two processors, their input topics, stores and changelogs.
import { botLoopProcess, BOT_LOOP, CHANNEL_EVENT_TYPES, channelMessageKeyOf, parseChannelEvent, type ChannelEvent } from '../processors/botLoop/index.js';
import {
  runKeyOf,
  sessionKeyOf,
  parseOptionsFor,
  toolEventParser,
  toolLoopProcess,
  toolLoopSessionProcess,
  TOOL_EVENT_TYPES,
  TOOL_LOOP,
  type ToolEvent,
} from '../processors/toolLoop/index.js';
import { sessionStateCodec } from '../schemas/codecs.js';
import { botLoopStateCodec, channelEventCodec, decisionCodec, toolEventCodec, toolLoopStateCodec } from '../schemas/codecs.js';
import type { LoopguardConfig } from './config.js';
import { makeTopology, type ProcessorNode, type TopicNames, type Topology } from './topology.js';

const changelog = (topics: TopicNames, store: string) => `${topics.changelogPrefix}${store}-changelog`;

/** The tool-loop stores: one per way of keying tool events, since neither's state can become the other's. */
export const TOOL_LOOP_STORES = { run: 'tool-loop-runs', session: 'tool-loop-sessions' } as const;

export function toolLoopNode(config: LoopguardConfig): ProcessorNode<ToolEvent> {
  const bySession = config.toolLoop.keyBy === 'session';
  const store = TOOL_LOOP_STORES[bySession ? 'session' : 'run'];
  return {
    name: TOOL_LOOP,
    process: bySession ? toolLoopSessionProcess(config.toolLoop) : toolLoopProcess(config.toolLoop),
    inputTopic: config.topics.toolEvents,
    eventTypes: TOOL_EVENT_TYPES,
    parse: toolEventParser(parseOptionsFor(config.toolLoop)),
    eventIdOf: (e: ToolEvent) => e.eventId,
    messageKeyOf: bySession ? sessionKeyOf : runKeyOf,
    store: { name: store, changelogTopic: changelog(config.topics, store) },
    codecs: { input: toolEventCodec, state: bySession ? sessionStateCodec : toolLoopStateCodec, output: decisionCodec },
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
