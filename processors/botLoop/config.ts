// `botLoopProtection` (docs/behaviour.md §3.2): strict blocks at every layer, and per-field resolution from
// the most specific layer that sets a field: conversation, account, channel, channels.defaults,
// built-in.
import { z } from 'zod';
import { isRecord as isObj } from '../kernel/contract.js';
import { formatIssues } from '../validation.js';
import type { BotPolicyBlock } from './policy.js';

export const botLoopBlockSchema = z.strictObject({
  enabled: z.boolean().optional(),
  maxEventsPerWindow: z.number().int().positive().optional(),
  windowSeconds: z.number().int().positive().optional(),
  cooldownSeconds: z.number().int().positive().optional(),
  maxConversationBotEvents: z.number().int().min(1).max(500).optional(),
});
export type BotLoopBlock = z.infer<typeof botLoopBlockSchema>;

export const BOT_LOOP_DEFAULTS = { enabled: true, maxEventsPerWindow: 20, windowSeconds: 60, cooldownSeconds: 60 } as const;

/** Where each channel keeps per-conversation overrides; channels not listed have none. */
export const CONVERSATION_LAYERS: Readonly<Record<string, string>> = { slack: 'channels', matrix: 'groups', googlechat: 'groups' };
/** Channels that use `channels.defaults` only (their own blocks are validated, then ignored). */
export const DEFAULTS_ONLY = new Set(['feishu', 'telegram']);

interface ChannelBlocks {
  readonly block: BotLoopBlock;
  readonly accounts: Readonly<Record<string, BotLoopBlock>>;
  readonly conversations: Readonly<Record<string, BotLoopBlock>>;
}

export interface BotLoopConfig {
  readonly defaults: BotLoopBlock;
  readonly channels: Readonly<Record<string, ChannelBlocks>>;
  /** `loopguard.botPolicy` (§4); absent: every default, which leaves §3 as it is. */
  readonly policy?: BotPolicyBlock;
}

export const defaultBotLoopConfig: BotLoopConfig = { defaults: {}, channels: {} };

export interface ResolvedBotLoop {
  readonly enabled: boolean;
  readonly maxEventsPerWindow: number;
  readonly windowMs: number;
  readonly cooldownMs: number;
  readonly maxConversationBotEvents: number | undefined;
}

export function resolveBotLoop(config: BotLoopConfig, channel: string, accountId: string, conversationId: string): ResolvedBotLoop {
  // Ids come from events: look up own keys only, so `constructor` or `__proto__` is just a name.
  const ch = DEFAULTS_ONLY.has(channel) || !Object.hasOwn(config.channels, channel) ? undefined : config.channels[channel];
  const layers: BotLoopBlock[] = [];
  if (ch !== undefined) {
    const conv = Object.hasOwn(ch.conversations, conversationId) ? ch.conversations[conversationId] : undefined;
    const acct = Object.hasOwn(ch.accounts, accountId) ? ch.accounts[accountId] : undefined;
    if (conv) layers.push(conv);
    if (acct) layers.push(acct);
    layers.push(ch.block);
  }
  layers.push(config.defaults);
  const pick = <K extends keyof BotLoopBlock>(k: K): BotLoopBlock[K] => layers.find((l) => l[k] !== undefined)?.[k];
  return {
    enabled: pick('enabled') ?? BOT_LOOP_DEFAULTS.enabled,
    maxEventsPerWindow: pick('maxEventsPerWindow') ?? BOT_LOOP_DEFAULTS.maxEventsPerWindow,
    windowMs: (pick('windowSeconds') ?? BOT_LOOP_DEFAULTS.windowSeconds) * 1000,
    cooldownMs: (pick('cooldownSeconds') ?? BOT_LOOP_DEFAULTS.cooldownSeconds) * 1000,
    maxConversationBotEvents: pick('maxConversationBotEvents'),
  };
}

type Fail = (path: string, message: string) => never;

function block(value: unknown, path: string, fail: Fail): BotLoopBlock {
  const r = botLoopBlockSchema.safeParse(value);
  if (r.success) return r.data;
  const first = r.error.issues[0]!;
  const extra = first.code === 'unrecognized_keys' ? first.keys : [];
  return fail([path, ...first.path.map(String), ...extra].join('.'), formatIssues(r.error.issues));
}

function blocksUnder(parent: unknown, path: string, fail: Fail): Record<string, BotLoopBlock> {
  const out = Object.create(null) as Record<string, BotLoopBlock>;
  if (!isObj(parent)) return out;
  for (const [id, v] of Object.entries(parent)) {
    if (isObj(v) && v.botLoopProtection !== undefined) out[id] = block(v.botLoopProtection, `${path}.${id}.botLoopProtection`, fail);
  }
  return out;
}

/** Reads every `botLoopProtection` block under `channels`; anything else there is ignored. */
export function loadBotLoopConfig(channels: unknown, fail: Fail, warn: (message: string) => void): BotLoopConfig {
  if (channels === undefined) return defaultBotLoopConfig;
  if (!isObj(channels)) return fail('channels', 'must be an object');
  const defaults =
    isObj(channels.defaults) && channels.defaults.botLoopProtection !== undefined ? block(channels.defaults.botLoopProtection, 'channels.defaults.botLoopProtection', fail) : {};
  const out = Object.create(null) as Record<string, ChannelBlocks>;
  for (const [name, ch] of Object.entries(channels)) {
    if (name === 'defaults' || !isObj(ch)) continue;
    const base = `channels.${name}`;
    const own = ch.botLoopProtection !== undefined ? block(ch.botLoopProtection, `${base}.botLoopProtection`, fail) : {};
    const accounts = blocksUnder(ch.accounts, `${base}.accounts`, fail);
    const convPath = Object.hasOwn(CONVERSATION_LAYERS, name) ? CONVERSATION_LAYERS[name] : undefined;
    const conversations = convPath !== undefined ? blocksUnder(ch[convPath], `${base}.${convPath}`, fail) : {};
    const setsAny = ch.botLoopProtection !== undefined || Object.keys(accounts).length > 0 || Object.keys(conversations).length > 0;
    if (DEFAULTS_ONLY.has(name)) {
      if (setsAny) warn(`${base}: ${name} uses channels.defaults.botLoopProtection only; its own botLoopProtection blocks are ignored`);
      continue;
    }
    out[name] = { block: own, accounts, conversations };
  }
  return { defaults, channels: out };
}
