// The bot-loop processor (docs/behaviour.md §3, and the bot side of §4). State is per conversation (channel, account,
// conversation): the conversation budget spans every pair in it, so channel events are
// partitioned by conversation while their Kafka key and their decisions' key stay the pair key.
import type { Process } from '../kernel/process.js';
import { BOT_LOOP_DEFAULTS, defaultBotLoopConfig, type BotLoopBlock, type BotLoopConfig } from './config.js';
import { decideHuman, decideMessage, type BotVerdict } from './decide.js';
import { conversationKeyOf, type ChannelEvent } from './events.js';
import { evolveConversation, isConversationIdle, type IdleHorizon } from './evolve.js';
import { allBotPolicies, botPolicyResolver } from './policy.js';
import { reactMessage, type BotDecision } from './react.js';
import { CONVERSATION_WINDOW_MS, initialConversationState, REASONS, type ConversationState } from './state.js';

export const BOT_LOOP = 'bot-loop';

export type BotLoopProcess = Process<ConversationState, ChannelEvent, BotVerdict, BotDecision>;

/** The longest window, retention and horizon any layer configures: idle sweeps wait at least that long. */
function longestHorizon(config: BotLoopConfig): IdleHorizon {
  const blocks: BotLoopBlock[] = [config.defaults];
  for (const ch of Object.values(config.channels)) blocks.push(ch.block, ...Object.values(ch.accounts), ...Object.values(ch.conversations));
  const max = (k: 'windowSeconds' | 'cooldownSeconds') => Math.max(BOT_LOOP_DEFAULTS[k], ...blocks.map((b) => b[k] ?? 0)) * 1000;
  const windowMs = max('windowSeconds');
  const slowHorizonMs = Math.max(0, ...allBotPolicies(config.policy).map((p) => p.slowLoop?.horizonMs ?? 0));
  return { windowMs, retentionMs: windowMs + max('cooldownSeconds') + CONVERSATION_WINDOW_MS, slowHorizonMs };
}

/** The message started a slow-loop cooldown of its own (§4.6), not one already running. */
function startsSlowLoop(state: ConversationState, event: ChannelEvent, verdict: BotVerdict): boolean {
  const next = verdict.slow?.cooldown;
  return event.type === 'bot_message' && next !== undefined && next !== null && next !== state.slow?.cooldown && next.start === event.ts;
}

export function botLoopProcess(config: BotLoopConfig = defaultBotLoopConfig): BotLoopProcess {
  const horizon = longestHorizon(config);
  const policyOf = botPolicyResolver(config.policy);
  return {
    name: BOT_LOOP,
    initialState: initialConversationState,
    keyOf: conversationKeyOf,
    decide: (state, event) => (event.type === 'bot_message' ? decideMessage(state, event, config, policyOf(event.channel)) : decideHuman(state, event, policyOf(event.channel))),
    evolve: (state, _event, verdict) => evolveConversation(state, verdict),
    // A human_message gets no decision (§4.6).
    react: (event, verdict) => (event.type === 'bot_message' ? reactMessage(event, verdict) : []),
    drops: (_state, _event, verdict) => verdict.dropped,
    trips: (state, event, verdict) => (startsSlowLoop(state, event, verdict) ? [{ what: REASONS.slowLoop, shadow: verdict.shadow }] : []),
    isEmpty: (s) => s.pairs.size === 0 && s.receivers.size === 0 && s.slow === null,
    isExpired: (s, streamTime) => isConversationIdle(s, streamTime, horizon),
  };
}

export * from './config.js';
export * from './events.js';
export * from './policy.js';
export * from './state.js';
export { BOT_DECISION, type BotDecision } from './react.js';
export type { BotVerdict } from './decide.js';
