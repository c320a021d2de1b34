// `tools.loopDetection` (docs/behaviour.md §2.1): the block as written (validated), and its resolution for
// one run: global block, overwritten field by field by the agent's block (one level deep for
// `detectors` and `postCompactionGuard`), defaults filled, then thresholds clamped upward.
// A `profile` (§6) brings the rules of another detector and its fixed numbers; thresholds set
// beside it override those numbers.
import { z } from 'zod';
import { resolveToolPolicy, type ResolvedToolPolicy, type ToolPolicyBlock } from './policy.js';

const positiveInt = z.number().int().positive();

/**
 * Rule sets a run may follow instead of §2's: `openclaw` decides as openclaw@2026.9.6 does
 * (docs/behaviour.md §6); `early`, loopguard's own preset, stops a loop at the first call that
 * repeats what the run already had, and never one that made progress (§7).
 */
export const PROFILES = ['openclaw', 'early'] as const;
export type Profile = (typeof PROFILES)[number];

export const loopDetectionBlockSchema = z
  .strictObject({
    profile: z.enum(PROFILES, { error: (i) => `must be one of ${PROFILES.map((p) => JSON.stringify(p)).join(', ')}, got ${JSON.stringify(i.input)}` }).optional(),
    enabled: z.boolean().optional(),
    historySize: positiveInt.max(1000, { message: 'must be at most 1000' }).optional(),
    warningThreshold: positiveInt.optional(),
    criticalThreshold: positiveInt.optional(),
    unknownToolThreshold: positiveInt.optional(),
    globalCircuitBreakerThreshold: positiveInt.optional(),
    detectors: z
      .strictObject({
        genericRepeat: z.boolean().optional(),
        knownPollNoProgress: z.boolean().optional(),
        pingPong: z.boolean().optional(),
      })
      .optional(),
    postCompactionGuard: z.strictObject({ windowSize: positiveInt.optional() }).optional(),
  })
  .superRefine((b, ctx) => {
    const order = (lo: keyof typeof b, hi: keyof typeof b) => {
      const [l, h] = [b[lo], b[hi]];
      if (typeof l === 'number' && typeof h === 'number' && l >= h) {
        ctx.addIssue({ code: 'custom', path: [hi], message: `${lo} (${l}) must be lower than ${hi} (${h})` });
      }
    };
    order('warningThreshold', 'criticalThreshold');
    order('criticalThreshold', 'globalCircuitBreakerThreshold');
  });

export type LoopDetectionBlock = z.infer<typeof loopDetectionBlockSchema>;

/** The validated `tools.loopDetection` plus the per-agent blocks (first occurrence of an id wins). */
export interface ToolLoopConfig {
  readonly global: LoopDetectionBlock;
  readonly agents: Readonly<Record<string, LoopDetectionBlock>>;
  /** Runs idle longer than this (event time) start fresh; loopguard's own setting. */
  readonly runTtlMs: number;
  /** `loopguard.toolPolicy` (§4); absent: every default, which leaves §2 as it is. */
  readonly policy?: ToolPolicyBlock;
  /** `loopguard.keyToolEventsBy`: state per run (default) or per session, its runs inside. */
  readonly keyBy?: ToolEventKey;
}

export type ToolEventKey = 'run' | 'session';

/** Whether any block of the config selects `profile`: events are then hashed for it too. */
export function usesProfile(config: ToolLoopConfig, profile: Profile): boolean {
  return config.global.profile === profile || Object.values(config.agents).some((a) => a.profile === profile);
}

export const DEFAULT_RUN_TTL_MS = 24 * 60 * 60 * 1000;

export const defaultToolLoopConfig: ToolLoopConfig = { global: {}, agents: {}, runTtlMs: DEFAULT_RUN_TTL_MS };

export interface ResolvedLoopDetection {
  /** The rule set the run follows; undefined: §2's. */
  readonly profile: Profile | undefined;
  /** As configured: `undefined` (unset) keeps history and the compaction guard but no detectors. */
  readonly enabled: boolean | undefined;
  readonly historySize: number;
  readonly warningThreshold: number;
  readonly criticalThreshold: number;
  readonly unknownToolThreshold: number;
  readonly globalCircuitBreakerThreshold: number;
  readonly detectors: { readonly genericRepeat: boolean; readonly knownPollNoProgress: boolean; readonly pingPong: boolean };
  readonly postCompactionGuard: { readonly windowSize: number };
}

export const LOOP_DETECTION_DEFAULTS = {
  historySize: 30,
  warningThreshold: 10,
  criticalThreshold: 20,
  unknownToolThreshold: 10,
  globalCircuitBreakerThreshold: 30,
  windowSize: 3,
} as const;

/**
 * The numbers the `openclaw` profile brings: openclaw@2026.9.6's fixed ones (it no longer lets
 * them be configured). They happen to equal §2.1's defaults; set beside the profile, any of
 * these keys overrides them, and the clamps of §2.1 apply as usual.
 */
export const OPENCLAW_PROFILE_SETS = {
  historySize: 30,
  warningThreshold: 10,
  criticalThreshold: 20,
  unknownToolThreshold: 10,
  globalCircuitBreakerThreshold: 30,
  windowSize: 3,
} as const;

// The early preset has no thresholds (§7): of these numbers it reads historySize and windowSize.
const PROFILE_NUMBERS: Readonly<Record<Profile, typeof LOOP_DETECTION_DEFAULTS>> = { openclaw: OPENCLAW_PROFILE_SETS, early: LOOP_DETECTION_DEFAULTS };

export function resolveLoopDetection(global: LoopDetectionBlock, agent: LoopDetectionBlock | undefined): ResolvedLoopDetection {
  const a = agent ?? {};
  const pick = <K extends keyof LoopDetectionBlock>(k: K) => (a[k] !== undefined ? a[k] : global[k]);
  const profile = pick('profile');
  const base = profile === undefined ? LOOP_DETECTION_DEFAULTS : PROFILE_NUMBERS[profile];
  const d = { ...global.detectors, ...a.detectors };
  const warningThreshold = pick('warningThreshold') ?? base.warningThreshold;
  let criticalThreshold = pick('criticalThreshold') ?? base.criticalThreshold;
  let globalCircuitBreakerThreshold = pick('globalCircuitBreakerThreshold') ?? base.globalCircuitBreakerThreshold;
  if (criticalThreshold <= warningThreshold) criticalThreshold = warningThreshold + 1;
  if (globalCircuitBreakerThreshold <= criticalThreshold) globalCircuitBreakerThreshold = criticalThreshold + 1;
  return {
    profile,
    enabled: pick('enabled'),
    historySize: pick('historySize') ?? base.historySize,
    warningThreshold,
    criticalThreshold,
    unknownToolThreshold: pick('unknownToolThreshold') ?? base.unknownToolThreshold,
    globalCircuitBreakerThreshold,
    detectors: { genericRepeat: d.genericRepeat ?? true, knownPollNoProgress: d.knownPollNoProgress ?? true, pingPong: d.pingPong ?? true },
    postCompactionGuard: { windowSize: a.postCompactionGuard?.windowSize ?? global.postCompactionGuard?.windowSize ?? base.windowSize },
  };
}

/** Everything that applies to a run: its loop detection and its tool policy. */
export interface RunConfig extends ResolvedLoopDetection {
  readonly policy: ResolvedToolPolicy;
}

function resolveRun(config: ToolLoopConfig, agentId: string | undefined): RunConfig {
  const own = <T>(m: Readonly<Record<string, T>> | undefined) => (agentId !== undefined && m !== undefined && Object.hasOwn(m, agentId) ? m[agentId] : undefined);
  const policy = config.policy ?? {};
  return { ...resolveLoopDetection(config.global, own(config.agents)), policy: resolveToolPolicy(policy, own(policy.agents)) };
}

/** Resolution is per agent id and pure, so it is computed once per agent and reused. */
export function resolverFor(config: ToolLoopConfig): (agentId: string | undefined) => RunConfig {
  const cache = new Map<string, RunConfig>();
  const globalOnly = resolveRun(config, undefined);
  const known = (agentId: string) => Object.hasOwn(config.agents, agentId) || (config.policy?.agents !== undefined && Object.hasOwn(config.policy.agents, agentId));
  return (agentId) => {
    if (agentId === undefined || !known(agentId)) return globalOnly;
    let r = cache.get(agentId);
    if (r === undefined) cache.set(agentId, (r = resolveRun(config, agentId)));
    return r;
  };
}
