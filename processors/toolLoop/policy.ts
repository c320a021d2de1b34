// `loopguard.toolPolicy` (docs/behaviour.md §4): the block as written (validated), and its
// resolution for one run: the global fields overwritten field by field by the run's agent
// (one level deep for `escalation` and `budgets`), the two `tools` maps merged key by key.
import { z } from 'zod';

const positiveInt = z.number().int().positive();

/**
 * A map keyed by names from the config file. zod drops a `__proto__` key of a record without a
 * word, so its entry would quietly not apply: refused instead, naming the key.
 */
const namedRecord = <T extends z.ZodType>(value: T) =>
  z
    .unknown()
    .superRefine((v, ctx) => {
      if (typeof v === 'object' && v !== null && Object.hasOwn(v, '__proto__')) ctx.addIssue({ code: 'custom', path: ['__proto__'], message: 'cannot be used as a key' });
    })
    .pipe(z.record(z.string(), value));

/** Most field names a loopKey may list, and their length (as a tool_call's own `loopKey`, docs/behaviour.md §7.1). */
export const MAX_LOOP_KEY_FIELDS = 64;
export const MAX_LOOP_KEY_FIELD_LENGTH = 256;

/**
 * Call identity (§7.1): the top-level argument fields that make two calls of a tool the same
 * call, or `false`: no two calls are the same, the tool is exempt (as `exempt: true`).
 */
export const loopKeySchema = z.union([
  z
    .array(z.string().max(MAX_LOOP_KEY_FIELD_LENGTH, { message: `field names must be at most ${MAX_LOOP_KEY_FIELD_LENGTH} characters` }))
    .max(MAX_LOOP_KEY_FIELDS, { message: `must list at most ${MAX_LOOP_KEY_FIELDS} fields` }),
  z.literal(false),
]);
export type LoopKey = z.infer<typeof loopKeySchema>;

export const toolEntrySchema = z
  .strictObject({
    exempt: z.boolean().optional(),
    poll: z.boolean().optional(),
    /** Which argument fields make two calls the same (§7.1); false exempts the tool. */
    loopKey: loopKeySchema.optional(),
    warningThreshold: positiveInt.optional(),
    criticalThreshold: positiveInt.optional(),
    /** Per run, for the calls whose selected entry is this key (§5). */
    maxCalls: positiveInt.optional(),
  })
  .superRefine((e, ctx) => {
    if (e.warningThreshold !== undefined && e.criticalThreshold !== undefined && e.warningThreshold >= e.criticalThreshold) {
      ctx.addIssue({
        code: 'custom',
        path: ['criticalThreshold'],
        message: `warningThreshold (${e.warningThreshold}) must be lower than criticalThreshold (${e.criticalThreshold})`,
      });
    }
  });

/** §5: per run; at least one of the two. */
export const budgetsSchema = z
  .strictObject({ maxCalls: positiveInt.optional(), maxSeconds: positiveInt.optional() })
  .refine((b) => b.maxCalls !== undefined || b.maxSeconds !== undefined, { message: 'must set maxCalls or maxSeconds (or both)' });

const policyFields = {
  mode: z.enum(['enforce', 'shadow']).optional(),
  escalation: z.strictObject({ abortAfterBlocks: positiveInt }).optional(),
  budgets: budgetsSchema.optional(),
  transientErrors: z.boolean().optional(),
  tools: namedRecord(toolEntrySchema).optional(),
};

export const toolPolicyAgentSchema = z.strictObject(policyFields);
export const toolPolicySchema = z.strictObject({ ...policyFields, agents: namedRecord(toolPolicyAgentSchema).optional() });

export type ToolEntry = z.infer<typeof toolEntrySchema>;
export type ToolPolicyAgentBlock = z.infer<typeof toolPolicyAgentSchema>;
export type ToolPolicyBlock = z.infer<typeof toolPolicySchema>;
export type PolicyMode = 'enforce' | 'shadow';
export type Budgets = z.infer<typeof budgetsSchema>;

/**
 * Whether a call is exempt (§4.3, §7.1): its entry says `exempt: true`, or its identity is `false`,
 * the event's own `loopKey` winning over its entry's. `byEvent`: what the event's `loopKey` says —
 * true (it is `false`), false (it names fields), undefined (the event has none).
 */
export function isExempt(entry: ToolEntry | undefined, byEvent: boolean | undefined): boolean {
  return entry?.exempt === true || (byEvent ?? entry?.loopKey === false);
}

/** The entry §4.3 selects for a call, with its key. */
export type SelectedTool = readonly [key: string, entry: ToolEntry];

/**
 * What a run's state counts for budgets (§5), the same for every run of one config: spent
 * calls in all when any block sets `budgets`, and per tool key only for the keys some block
 * gives `maxCalls` (no other key can ever be asked for its count).
 */
export interface BudgetTracking {
  readonly runs: boolean;
  readonly keys: ReadonlySet<string>;
}

export interface ResolvedToolPolicy {
  readonly mode: PolicyMode;
  /** Blocks after which the run is aborted (§4.2); undefined: escalation is off. */
  readonly abortAfterBlocks: number | undefined;
  readonly transientErrors: boolean;
  /** The run's budgets (§5); undefined: none. */
  readonly budgets: Budgets | undefined;
  readonly tracking: BudgetTracking;
  /** The entry that applies to a tool name (§4.3), if any. */
  readonly toolEntry: (toolName: string) => ToolEntry | undefined;
  /** The same, with the key that selected it. */
  readonly selectTool: (toolName: string) => SelectedTool | undefined;
}

export function resolveToolPolicy(global: ToolPolicyBlock, agent: ToolPolicyAgentBlock | undefined): ResolvedToolPolicy {
  const a = agent ?? {};
  // One level deep: an agent's escalation overwrites the global one's fields, never removes it.
  const escalation = global.escalation !== undefined || a.escalation !== undefined ? { ...global.escalation, ...a.escalation } : undefined;
  // Likewise budgets (§5): an agent changes or adds a budget, never removes one.
  const budgets = global.budgets !== undefined || a.budgets !== undefined ? { ...global.budgets, ...a.budgets } : undefined;
  const selectTool = toolSelector(mergeTools(global.tools, a.tools));
  return {
    mode: a.mode ?? global.mode ?? 'enforce',
    abortAfterBlocks: escalation?.abortAfterBlocks,
    transientErrors: a.transientErrors ?? global.transientErrors ?? false,
    budgets,
    tracking: budgetTracking(global),
    toolEntry: (toolName) => selectTool(toolName)?.[1],
    selectTool,
  };
}

/** §5: what runs of this policy count (see BudgetTracking). */
export function budgetTracking(global: ToolPolicyBlock): BudgetTracking {
  const blocks: ToolPolicyAgentBlock[] = [global, ...Object.values(global.agents ?? {})];
  const keys = new Set<string>();
  for (const b of blocks) for (const [k, e] of Object.entries(b.tools ?? {})) if (e.maxCalls !== undefined) keys.add(k);
  return { runs: blocks.some((b) => b.budgets !== undefined), keys };
}

/** Key by key: an agent's entry overwrites the same key's fields; its new keys come after the global ones. */
export function mergeTools(global: Readonly<Record<string, ToolEntry>> = {}, agent: Readonly<Record<string, ToolEntry>> = {}): ReadonlyArray<readonly [string, ToolEntry]> {
  const merged = new Map<string, ToolEntry>(Object.entries(global));
  for (const [k, e] of Object.entries(agent)) merged.set(k, { ...merged.get(k), ...e });
  return [...merged];
}

/**
 * The entry for a tool name: the key equal to it, else the matching pattern with the most
 * characters other than `*`, ties to the first in merged order.
 */
export function toolMatcher(entries: ReadonlyArray<readonly [string, ToolEntry]>): (toolName: string) => ToolEntry | undefined {
  const select = toolSelector(entries);
  return (toolName) => select(toolName)?.[1];
}

/** toolMatcher, with the key that selected the entry. */
export function toolSelector(entries: ReadonlyArray<readonly [string, ToolEntry]>): (toolName: string) => SelectedTool | undefined {
  if (entries.length === 0) return () => undefined;
  const exact = new Map(entries.map((x) => [x[0], x] as const));
  const literalLength = (p: string) => p.length - (p.match(/\*/g)?.length ?? 0);
  // A stable sort keeps merged order among patterns of equal weight.
  const patterns = entries.filter(([k]) => k.includes('*')).sort((x, y) => literalLength(y[0]) - literalLength(x[0]));
  return (toolName) => exact.get(toolName) ?? patterns.find(([p]) => globMatch(p, toolName));
}

/**
 * Whole-string, case-sensitive match where `*` matches any run of characters. Greedy with one
 * backtrack point, so at most pattern × name steps whatever the input.
 */
export function globMatch(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    const c = pattern[p]; // undefined past the pattern's end, which matches nothing
    if (c === '*') {
      star = p++;
      resume = n;
    } else if (c === name[n]) {
      p++;
      n++;
    } else if (star >= 0) {
      p = star + 1;
      n = ++resume;
    } else return false;
  }
  // The name is used up: what is left of the pattern must be stars only.
  for (; p < pattern.length; p++) if (pattern[p] !== '*') return false;
  return true;
}

/** The loopKey of a call's entry (§7.1): by its tool, under the agent the event names. */
export type LoopKeyOf = (agentId: string | undefined, toolName: string) => LoopKey | undefined;

/**
 * The config's loopKeys as the parser reads them, or undefined when no entry sets one (then no
 * event pays for a lookup). The entry is §4.3's for the tool in the global map merged with the
 * map of the agent the event itself names: the parser sees one event, not its run.
 */
export function loopKeyResolver(policy: ToolPolicyBlock | undefined): LoopKeyOf | undefined {
  if (policy === undefined) return undefined;
  const blocks: ToolPolicyAgentBlock[] = [policy, ...Object.values(policy.agents ?? {})];
  if (!blocks.some((b) => Object.values(b.tools ?? {}).some((e) => e.loopKey !== undefined))) return undefined;
  const global = toolSelector(mergeTools(policy.tools));
  const byAgent = new Map<string, (toolName: string) => SelectedTool | undefined>();
  return (agentId, toolName) => {
    let select = global;
    if (agentId !== undefined && policy.agents !== undefined && Object.hasOwn(policy.agents, agentId)) {
      select = byAgent.get(agentId) ?? global;
      if (!byAgent.has(agentId)) byAgent.set(agentId, (select = toolSelector(mergeTools(policy.tools, policy.agents[agentId]!.tools))));
    }
    return select(toolName)?.[1].loopKey;
  };
}
