// Tool events (SPEC §1) as the processor sees them, and the one validator that turns a parsed
// JSON (or decoded Avro) object into one. `null` counts as absent everywhere.
import { z } from 'zod';

const opt = <T extends z.ZodType>(t: T) => t.nullish().transform((v) => v ?? undefined);
const nonEmpty = z.string().min(1);

const identity = {
  ts: z.number({ error: 'ts must be a number (epoch ms)' }).finite(),
  eventId: opt(z.string()),
  sessionKey: opt(z.string()),
  runId: opt(z.string()),
  agentId: opt(z.string()),
};

const callFields = {
  ...identity,
  toolCallId: opt(z.string()),
  toolName: nonEmpty,
  args: z.unknown().optional().transform((v) => (v === null ? undefined : v)),
  argsHash: opt(nonEmpty),
  action: opt(z.string()),
};

const hasRunKey = (e: { sessionKey?: string | undefined; runId?: string | undefined }) => Boolean(e.runId || e.sessionKey);
const hasArgs = (e: { args?: unknown; argsHash?: string | undefined }) => e.args !== undefined || e.argsHash !== undefined;
const KEY_MSG = { message: 'sessionKey or runId is required', path: ['runId'] };
const ARGS_MSG = { message: 'args or argsHash is required', path: ['args'] };

const toolCall = z.object({ type: z.literal('tool_call'), ...callFields }).refine(hasRunKey, KEY_MSG).refine(hasArgs, ARGS_MSG);
const toolOutcome = z.object({
  type: z.literal('tool_outcome'),
  ...callFields,
  result: z.unknown().optional().transform((v) => (v === null ? undefined : v)),
  error: z.union([z.string(), z.looseObject({ name: opt(z.string()), message: opt(z.string()) })]).nullish().transform((v) => v ?? undefined),
  resultHash: opt(nonEmpty),
  unknownToolName: opt(z.string()),
}).refine(hasRunKey, KEY_MSG).refine(hasArgs, ARGS_MSG);
const compaction = z.object({ type: z.literal('compaction'), ...identity }).refine(hasRunKey, KEY_MSG);
const runEnd = z.object({ type: z.literal('run_end'), ...identity }).refine(hasRunKey, KEY_MSG);

export const toolEventSchema = z.discriminatedUnion('type', [toolCall, toolOutcome, compaction, runEnd]);

export type ToolCall = z.output<typeof toolCall>;
export type ToolOutcome = z.output<typeof toolOutcome>;
export type Compaction = z.output<typeof compaction>;
export type RunEnd = z.output<typeof runEnd>;
export type ToolEvent = ToolCall | ToolOutcome | Compaction | RunEnd;

export const TOOL_EVENT_TYPES = ['tool_call', 'tool_outcome', 'compaction', 'run_end'] as const;

/** The Kafka key of a tool event: its run id, else its session key. */
export function runKeyOf(e: { runId?: string | undefined; sessionKey?: string | undefined }): string {
  return e.runId || e.sessionKey || '';
}
