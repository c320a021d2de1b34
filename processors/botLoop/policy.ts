// `loopguard.botPolicy` (docs/behaviour.md §4): the block as written (validated), and its
// resolution for one channel: the global fields overwritten by `channels.<channel>`, where
// `slowLoop` and `hopLimit` replace the global block whole.
//
// "A channel cannot switch off a slowLoop or hopLimit set globally": a channel block that leaves
// the key out inherits the global one, and there is no value that means "off" — `null`,
// `false` or anything but an object is a config error naming the path (as for an agent's
// `escalation` on the tool side). A channel may switch either on when the global block has none.
import { z } from 'zod';
import type { PolicyMode } from '../toolLoop/policy.js';

const positiveInt = z.number().int().positive();

const slowLoopSchema = z.strictObject({ maxBotMessages: positiveInt.optional(), horizonSeconds: positiveInt.optional() });
const hopLimitSchema = z.strictObject({ maxOutgoing: positiveInt.optional() });

const policyFields = {
  mode: z.enum(['enforce', 'shadow']).optional(),
  slowLoop: slowLoopSchema.optional(),
  humanReset: z.boolean().optional(),
  hopLimit: hopLimitSchema.optional(),
};

export const botPolicyChannelSchema = z.strictObject(policyFields);
export const botPolicySchema = z.strictObject({ ...policyFields, channels: z.record(z.string(), botPolicyChannelSchema).optional() });

export type BotPolicyChannelBlock = z.infer<typeof botPolicyChannelSchema>;
export type BotPolicyBlock = z.infer<typeof botPolicySchema>;

export const BOT_POLICY_DEFAULTS = { maxBotMessages: 60, horizonSeconds: 10_800, maxOutgoing: 3 } as const;

export interface ResolvedBotPolicy {
  readonly mode: PolicyMode;
  /** §4.6; undefined: off. */
  readonly slowLoop: { readonly maxBotMessages: number; readonly horizonMs: number } | undefined;
  readonly humanReset: boolean;
  /** §4.7; undefined: off. */
  readonly hopLimit: { readonly maxOutgoing: number } | undefined;
}

export const DEFAULT_BOT_POLICY: ResolvedBotPolicy = { mode: 'enforce', slowLoop: undefined, humanReset: false, hopLimit: undefined };

function resolveBlock(global: BotPolicyBlock, ch: BotPolicyChannelBlock | undefined): ResolvedBotPolicy {
  const c = ch ?? {};
  // Whole blocks: a channel's slowLoop takes none of the global one's numbers.
  const slow = c.slowLoop ?? global.slowLoop;
  const hop = c.hopLimit ?? global.hopLimit;
  return {
    mode: c.mode ?? global.mode ?? 'enforce',
    slowLoop:
      slow === undefined
        ? undefined
        : { maxBotMessages: slow.maxBotMessages ?? BOT_POLICY_DEFAULTS.maxBotMessages, horizonMs: (slow.horizonSeconds ?? BOT_POLICY_DEFAULTS.horizonSeconds) * 1000 },
    humanReset: c.humanReset ?? global.humanReset ?? false,
    hopLimit: hop === undefined ? undefined : { maxOutgoing: hop.maxOutgoing ?? BOT_POLICY_DEFAULTS.maxOutgoing },
  };
}

/** Resolves every channel once; the result looks a channel up by its own keys only. */
export function botPolicyResolver(policy: BotPolicyBlock | undefined): (channel: string) => ResolvedBotPolicy {
  if (policy === undefined) return () => DEFAULT_BOT_POLICY;
  const global = resolveBlock(policy, undefined);
  const byChannel = new Map(Object.entries(policy.channels ?? {}).map(([name, block]) => [name, resolveBlock(policy, block)]));
  return (channel) => byChannel.get(channel) ?? global;
}

/** Every resolved policy a config can produce (for the longest horizon an idle sweep must wait). */
export function allBotPolicies(policy: BotPolicyBlock | undefined): readonly ResolvedBotPolicy[] {
  if (policy === undefined) return [DEFAULT_BOT_POLICY];
  return [resolveBlock(policy, undefined), ...Object.values(policy.channels ?? {}).map((b) => resolveBlock(policy, b))];
}
