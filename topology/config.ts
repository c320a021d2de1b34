// The one config module. It declares every key once (type, default, doc), rejects unknown keys
// inside the blocks loopguard owns, and is the only reader of process.env.
//
// A config file is JSON or JSON5 and may be a whole gateway configuration: loopguard reads
// `tools.loopDetection`, `agents.list[].tools.loopDetection`, the `botLoopProtection` blocks
// under `channels`, and its own `loopguard` block; everything else is ignored.
import { readFileSync } from 'node:fs';
import JSON5 from 'json5';
import { z } from 'zod';
import { DEFAULT_RUN_TTL_MS, loopDetectionBlockSchema, type LoopDetectionBlock, type ToolLoopConfig } from '../processors/toolLoop/config.js';
import { loadBotLoopConfig, type BotLoopConfig } from '../processors/botLoop/config.js';
import { formatIssues } from '../processors/validation.js';
import { ERROR_CODES, LoopguardError } from './errors.js';
import { DEFAULT_TOPICS, type TopicNames } from './topology.js';

const d = <T extends z.ZodType>(t: T, doc: string) => t.describe(doc);

export const loopguardBlockSchema = z.strictObject({
  runTtlSeconds: d(z.number().int().positive().default(DEFAULT_RUN_TTL_MS / 1000), 'Runs idle longer than this (event time) start fresh.'),
  topics: z.strictObject({
    toolEvents: d(z.string().min(1).default(DEFAULT_TOPICS.toolEvents), 'Input topic for tool events.'),
    channelEvents: d(z.string().min(1).default(DEFAULT_TOPICS.channelEvents), 'Input topic for bot messages.'),
    verdicts: d(z.string().min(1).default(DEFAULT_TOPICS.verdicts), 'Control topic decisions are published to.'),
    deadLetter: d(z.string().min(1).default(DEFAULT_TOPICS.deadLetter), 'Where undecodable or invalid events go, with the reason in headers.'),
    changelogPrefix: d(z.string().default(DEFAULT_TOPICS.changelogPrefix), 'Changelog topics are <prefix><store>-changelog.'),
    partitions: d(z.number().int().positive().default(6), 'Partitions of the input, decision and changelog topics (created by `topics create`); also what `replay` partitions by.'),
    replicationFactor: d(z.number().int().positive().default(1), 'Replication factor of created topics.'),
  }).prefault({}),
  kafka: z.strictObject({
    brokers: d(z.array(z.string().min(1)).min(1).default(['127.0.0.1:9092']), 'Bootstrap brokers (env KAFKA_BROKERS, comma-separated, overrides).'),
    clientId: d(z.string().min(1).default('loopguard'), 'Kafka client id.'),
    ssl: d(z.boolean().default(false), 'Connect with TLS.'),
    sasl: d(z.strictObject({
      mechanism: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']),
      username: z.string(),
      password: z.string(),
    }).optional(), 'SASL credentials (env KAFKA_SASL_USERNAME / KAFKA_SASL_PASSWORD override).'),
  }).prefault({}),
  schemaRegistry: z.strictObject({
    url: d(z.string().url().default('http://127.0.0.1:8081'), 'Confluent-compatible schema registry (env SCHEMA_REGISTRY_URL overrides).'),
    startupAttempts: d(z.number().int().positive().default(8), 'Attempts to register schemas at start-up (jittered exponential backoff, capped at 10 s) before `run` gives up.'),
  }).prefault({}),
  consumer: z.strictObject({
    groupId: d(z.string().min(1).default('loopguard'), 'Consumer group of `loopguard run`.'),
    sessionTimeoutMs: d(z.number().int().min(6000).default(30_000), 'How long a silent member keeps its partitions before the group moves them (a crashed instance\'s partitions wait this long).'),
  }).prefault({}),
  processing: z.strictObject({
    guarantee: d(z.enum(['at_least_once', 'exactly_once']).default('at_least_once'), 'at_least_once: decisions may repeat after a crash (same id and content). exactly_once: decisions, changelog writes and input offsets commit in one Kafka transaction per batch; readers must use read-committed.'),
  }).prefault({}),
  http: z.strictObject({
    port: d(z.number().int().min(0).max(65535).default(9464), 'Port of /metrics, /healthz and /readyz (0: any free port, logged at start).'),
    host: d(z.string().min(1).default('127.0.0.1'), 'Address the HTTP endpoints listen on (0.0.0.0: every interface, e.g. in a container).'),
  }).prefault({}),
  log: z.strictObject({
    level: d(z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'), 'Log level (env LOG_LEVEL overrides).'),
    redact: d(z.boolean().default(true), 'Redact tool arguments, results and chat text in logs.'),
  }).prefault({}),
});

export type LoopguardSettings = z.output<typeof loopguardBlockSchema>;

export interface LoopguardConfig {
  readonly toolLoop: ToolLoopConfig;
  readonly botLoop: BotLoopConfig;
  readonly settings: LoopguardSettings;
  readonly topics: TopicNames;
  /** Non-fatal notes from loading (e.g. blocks that are validated but ignored). */
  readonly warnings: readonly string[];
}

const fail = (path: string, message: string): never => {
  throw new LoopguardError(ERROR_CODES.configInvalid, `config ${path}: ${message}`, { key: path });
};

function validate<S extends z.ZodType>(schema: S, value: unknown, path: string): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const first = r.error.issues[0]!;
  const keys = first.code === 'unrecognized_keys' ? first.keys : [];
  const full = [path, ...first.path.map(String), ...keys].filter(Boolean).join('.');
  return fail(full, formatIssues(r.error.issues));
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function loadToolLoop(raw: Record<string, unknown>, runTtlMs: number): ToolLoopConfig {
  const tools = raw.tools;
  const global = isObj(tools) && tools.loopDetection !== undefined ? validate(loopDetectionBlockSchema, tools.loopDetection, 'tools.loopDetection') : {};
  const agents: Record<string, LoopDetectionBlock> = {};
  const list = isObj(raw.agents) ? raw.agents.list : undefined;
  if (list !== undefined && !Array.isArray(list)) fail('agents.list', 'must be an array');
  (list as unknown[] | undefined ?? []).forEach((agent, i) => {
    if (!isObj(agent) || !isObj(agent.tools) || agent.tools.loopDetection === undefined) return;
    if (typeof agent.id !== 'string' || agent.id === '') fail(`agents.list.${i}.id`, 'an agent with tools.loopDetection needs a string id');
    const block = validate(loopDetectionBlockSchema, agent.tools.loopDetection, `agents.list.${i}.tools.loopDetection`);
    if (!Object.hasOwn(agents, agent.id as string)) agents[agent.id as string] = block;
  });
  return { global, agents, runTtlMs };
}

/** Config from an already-parsed object (tests pass config this way) plus the environment. */
export function configFrom(raw: unknown, env: Readonly<Record<string, string | undefined>> = {}): LoopguardConfig {
  if (raw !== undefined && !isObj(raw)) fail('(root)', 'must be an object');
  const obj = (raw ?? {}) as Record<string, unknown>;
  const settings = applyEnv(validate(loopguardBlockSchema, obj.loopguard ?? {}, 'loopguard'), env);
  const warnings: string[] = [];
  const botLoop = loadBotLoopConfig(obj.channels, (path, message) => fail(path, message), (w) => warnings.push(w));
  const t = settings.topics;
  return {
    toolLoop: loadToolLoop(obj, settings.runTtlSeconds * 1000),
    botLoop,
    settings,
    topics: { toolEvents: t.toolEvents, channelEvents: t.channelEvents, verdicts: t.verdicts, deadLetter: t.deadLetter, changelogPrefix: t.changelogPrefix },
    warnings,
  };
}

function applyEnv(s: LoopguardSettings, env: Readonly<Record<string, string | undefined>>): LoopguardSettings {
  const brokers = env.KAFKA_BROKERS?.split(',').map((b) => b.trim()).filter(Boolean);
  const level = env.LOG_LEVEL;
  if (level !== undefined) validate(loopguardBlockSchema.shape.log, { level }, 'env.LOG_LEVEL');
  const sasl = s.kafka.sasl && env.KAFKA_SASL_USERNAME ? { ...s.kafka.sasl, username: env.KAFKA_SASL_USERNAME, password: env.KAFKA_SASL_PASSWORD ?? '' } : s.kafka.sasl;
  return {
    ...s,
    kafka: { ...s.kafka, brokers: brokers?.length ? brokers : s.kafka.brokers, sasl },
    schemaRegistry: { ...s.schemaRegistry, url: env.SCHEMA_REGISTRY_URL || s.schemaRegistry.url },
    log: { ...s.log, level: (level as LoopguardSettings['log']['level'] | undefined) ?? s.log.level },
  };
}

/** Reads a JSON/JSON5 config file (none: defaults) and the process environment. */
export function loadConfig(file: string | undefined, env: Readonly<Record<string, string | undefined>> = process.env): LoopguardConfig {
  if (file === undefined) return configFrom({}, env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new LoopguardError(ERROR_CODES.configUnreadable, `cannot read config file ${file}: ${(e as Error).message}`, { file });
  }
  let raw: unknown;
  try {
    raw = JSON5.parse(text);
  } catch (e) {
    throw new LoopguardError(ERROR_CODES.configInvalid, `config file ${file} is not valid JSON5: ${(e as Error).message}`, { file });
  }
  return configFrom(raw, env);
}
