// The one config module. It declares every key once (type, default, doc), rejects unknown keys
// inside the blocks loopguard owns, and is the only reader of process.env.
//
// A config file is JSON or JSON5 and may be a whole gateway configuration: loopguard reads
// `tools.loopDetection`, `agents.list[].tools.loopDetection`, the `botLoopProtection` blocks
// under `channels`, and its own `loopguard` block (runtime settings, `toolPolicy`,
// `botPolicy`); everything else is ignored.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import JSON5 from 'json5';
import { z } from 'zod';
import { DEFAULT_RUN_TTL_MS, loopDetectionBlockSchema, type LoopDetectionBlock, type ToolEventKey, type ToolLoopConfig } from '../processors/toolLoop/config.js';
import { toolPolicySchema, type ToolPolicyBlock } from '../processors/toolLoop/policy.js';
import { loadBotLoopConfig, type BotLoopConfig } from '../processors/botLoop/config.js';
import { botPolicySchema } from '../processors/botLoop/policy.js';
import { isRecord as isObj } from '../processors/kernel/contract.js';
import { formatIssues } from '../processors/validation.js';
import { ERROR_CODES, LoopguardError } from './errors.js';
import { DEFAULT_TOPICS, type TopicNames } from './topology.js';

const d = <T extends z.ZodType>(t: T, doc: string) => t.describe(doc);

const PORT = /^(\d{1,5})$/;
const brokerSchema = z.string().refine(
  (b) => {
    const at = b.lastIndexOf(':');
    const host = b.slice(0, at);
    const port = PORT.exec(b.slice(at + 1));
    return at > 0 && !/[\s,/]/.test(host) && port !== null && Number(port[1]) >= 1 && Number(port[1]) <= 65535;
  },
  { error: (i) => `must be host:port, got ${JSON.stringify(i.input)}` },
);
const registryUrlSchema = z.url({ protocol: /^https?$/, error: (i) => `must be an http:// or https:// URL, got ${JSON.stringify(i.input)}` });
const saslMechanismSchema = z.enum(['plain', 'scram-sha-256', 'scram-sha-512']);

/**
 * A PEM file, read when the config loads, so that a missing, unreadable or malformed one
 * refuses to start naming its key instead of failing the first connection. The path stays in
 * the settings (made absolute: the working directory is the one at load); the clients read it.
 */
const pemFileSchema = (kind: 'certificate' | 'private key') =>
  z
    .string()
    .min(1)
    .transform((path, ctx) => {
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: `cannot read ${path}: ${(e as Error).message}` });
        return z.NEVER;
      }
      if (kind === 'certificate') {
        try {
          new X509Certificate(text);
        } catch {
          ctx.addIssue({ code: 'custom', message: `${path} holds no PEM certificate` });
          return z.NEVER;
        }
      } else if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) {
        ctx.addIssue({ code: 'custom', message: `${path} holds no PEM private key` });
        return z.NEVER;
      }
      return resolve(path);
    });

export interface TlsFiles {
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
  readonly keyPassword?: string;
}

/** A client certificate needs its key, and an encrypted key its password: checked at load. */
function checkClientKey(t: TlsFiles): { key: keyof TlsFiles; message: string } | undefined {
  if ((t.certFile === undefined) !== (t.keyFile === undefined)) return { key: t.certFile === undefined ? 'certFile' : 'keyFile', message: 'certFile and keyFile go together' };
  if (t.keyFile === undefined) return undefined;
  try {
    createPrivateKey({ key: readFileSync(t.keyFile), ...(t.keyPassword !== undefined ? { passphrase: t.keyPassword } : {}) });
    return undefined;
  } catch (e) {
    return {
      key: t.keyPassword === undefined ? 'keyFile' : 'keyPassword',
      message: `cannot load ${t.keyFile}${t.keyPassword === undefined ? ' (encrypted? set keyPassword)' : ' with this password'}: ${(e as Error).message}`,
    };
  }
}

const tlsFilesSchema = z
  .strictObject({
    caFile: d(pemFileSchema('certificate').optional(), "CA certificate(s), PEM, to trust instead of the system's: the CA that signed the broker's certificate."),
    certFile: d(pemFileSchema('certificate').optional(), 'Client certificate, PEM, for brokers that authenticate clients by certificate (mutual TLS); with keyFile.'),
    keyFile: d(pemFileSchema('private key').optional(), "certFile's private key, PEM."),
    keyPassword: d(z.string().optional(), 'Password of an encrypted keyFile.'),
  })
  .superRefine((t, ctx) => {
    const bad = checkClientKey(t);
    if (bad !== undefined) ctx.addIssue({ code: 'custom', path: [bad.key], message: bad.message });
  });

/** `kafka.ssl`: off, on with the system's CAs, or on with files of its own. */
const sslSchema = z.union([z.boolean(), tlsFilesSchema], {
  error: (i) => (typeof i.input === 'object' ? undefined : 'must be true, false, or { caFile, certFile, keyFile, keyPassword }'),
});

/** The TLS files of a `kafka.ssl` setting; undefined when TLS is off. */
export function kafkaTls(ssl: boolean | TlsFiles): TlsFiles | undefined {
  if (ssl === false) return undefined;
  return ssl === true ? {} : ssl;
}
export const kafkaClientSchema = z.enum(['kafkajs', 'librdkafka']);
const logLevelSchema = z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']);

export const loopguardBlockSchema = z.strictObject({
  toolPolicy: d(toolPolicySchema.optional(), "loopguard's own tool policy (docs/behaviour.md §4): mode, escalation, transientErrors, tools, agents."),
  botPolicy: d(botPolicySchema.optional(), "loopguard's own bot policy (docs/behaviour.md §4): mode, slowLoop, humanReset, hopLimit, channels."),
  runTtlSeconds: d(
    z
      .number()
      .int()
      .positive()
      .default(DEFAULT_RUN_TTL_MS / 1000),
    'Runs idle longer than this (event time) start fresh.',
  ),
  keyToolEventsBy: d(
    z.enum(['run', 'session']).default('run'),
    "How tool events are keyed and their state kept: 'run' (per run, the default) or 'session' (per session, its runs inside: the openclaw profile's history shared by a session's runs needs it; producers must key by session too).",
  ),
  maxFutureSkewSeconds: d(
    z.number().int().positive().default(300),
    "Events whose ts is further ahead of the processing host's clock are invalid (dead-letter reason future_timestamp).",
  ),
  topics: z
    .strictObject({
      toolEvents: d(z.string().min(1).default(DEFAULT_TOPICS.toolEvents), 'Input topic for tool events.'),
      channelEvents: d(z.string().min(1).default(DEFAULT_TOPICS.channelEvents), 'Input topic for bot messages.'),
      verdicts: d(z.string().min(1).default(DEFAULT_TOPICS.verdicts), 'Control topic decisions are published to.'),
      deadLetter: d(z.string().min(1).default(DEFAULT_TOPICS.deadLetter), 'Where undecodable or invalid events go, with the reason in headers.'),
      changelogPrefix: d(z.string().default(DEFAULT_TOPICS.changelogPrefix), 'Changelog topics are <prefix><store>-changelog.'),
      partitions: d(
        z.number().int().positive().default(6),
        'Partitions of the input, decision and changelog topics (created by `topics create`); also what `replay` partitions by.',
      ),
      replicationFactor: d(z.number().int().positive().default(1), 'Replication factor of created topics.'),
    })
    .prefault({}),
  kafka: z
    .strictObject({
      brokers: d(z.array(brokerSchema).min(1).default(['127.0.0.1:9092']), 'Bootstrap brokers, host:port (env KAFKA_BROKERS, comma-separated, overrides).'),
      clientId: d(z.string().min(1).default('loopguard'), 'Kafka client id.'),
      client: d(
        kafkaClientSchema.default('kafkajs'),
        'Kafka client library: kafkajs, or librdkafka (the optional dependency @confluentinc/kafka-javascript, about 2.5x less CPU per event; `loopguard reset` does not yet re-publish correctly on it). Where librdkafka is asked for but not installed, loopguard runs on kafkajs and says so once. Env LOOPGUARD_KAFKA_CLIENT overrides.',
      ),
      ssl: d(
        sslSchema.default(false),
        "TLS: true (the system's CAs), or { caFile, certFile, keyFile, keyPassword } (PEM files read at start; env KAFKA_SSL, KAFKA_SSL_CA_FILE, KAFKA_SSL_CERT_FILE, KAFKA_SSL_KEY_FILE, KAFKA_SSL_KEY_PASSWORD override, and any of the files enables TLS).",
      ),
      sasl: d(
        z
          .strictObject({
            mechanism: saslMechanismSchema,
            username: z.string(),
            password: z.string(),
          })
          .optional(),
        'SASL credentials (env KAFKA_SASL_MECHANISM / KAFKA_SASL_USERNAME / KAFKA_SASL_PASSWORD override, and enable SASL without this block: username and password, mechanism scram-sha-512 unless given).',
      ),
    })
    .prefault({}),
  schemaRegistry: z
    .strictObject({
      url: d(registryUrlSchema.default('http://127.0.0.1:8081'), 'Confluent-compatible schema registry (env SCHEMA_REGISTRY_URL overrides).'),
      caFile: d(
        pemFileSchema('certificate').optional(),
        "For an https:// registry: CA certificate(s), PEM, to trust instead of the system's (env SCHEMA_REGISTRY_CA_FILE overrides).",
      ),
      startupAttempts: d(z.number().int().positive().default(8), 'Attempts to register schemas at start-up (jittered exponential backoff, capped at 10 s) before `run` gives up.'),
    })
    .prefault({}),
  consumer: z
    .strictObject({
      groupId: d(z.string().min(1).default('loopguard'), 'Consumer group of `loopguard run`.'),
      sessionTimeoutMs: d(
        z.number().int().min(6000).default(30_000),
        "How long a silent member keeps its partitions before the group moves them (a crashed instance's partitions wait this long).",
      ),
    })
    .prefault({}),
  processing: z
    .strictObject({
      guarantee: d(
        z.enum(['at_least_once', 'exactly_once']).default('at_least_once'),
        'at_least_once: decisions may repeat after a crash (same id and content). exactly_once: decisions, changelog writes and input offsets commit in one Kafka transaction per batch; readers must use read-committed.',
      ),
    })
    .prefault({}),
  http: z
    .strictObject({
      port: d(z.number().int().min(0).max(65535).default(9464), 'Port of /metrics, /healthz and /readyz (0: any free port, logged at start).'),
      host: d(z.string().min(1).default('127.0.0.1'), 'Address the HTTP endpoints listen on (0.0.0.0: every interface, e.g. in a container).'),
    })
    .prefault({}),
  log: z
    .strictObject({
      level: d(logLevelSchema.default('info'), 'Log level (env LOG_LEVEL, any case, overrides).'),
      redact: d(z.boolean().default(true), 'Redact tool arguments, results and chat text in logs.'),
    })
    .prefault({}),
});

export type LoopguardSettings = z.output<typeof loopguardBlockSchema>;

export interface LoopguardConfig {
  readonly toolLoop: ToolLoopConfig;
  readonly botLoop: BotLoopConfig;
  readonly settings: LoopguardSettings;
  readonly topics: TopicNames;
  /** Whether brokers were named (KAFKA_BROKERS or `loopguard.kafka.brokers`) rather than defaulted. */
  readonly brokersConfigured: boolean;
  /** Non-fatal notes from loading (e.g. blocks that are validated but ignored). */
  readonly warnings: readonly string[];
}

const fail = (path: string, message: string): never => {
  throw new LoopguardError(ERROR_CODES.configInvalid, `config ${path}: ${message}`, { key: path });
};

/**
 * A union's issue as the issue of the branch the value was meant for: `ssl: { caFile: … }` that
 * fails is about its caFile, not "neither a boolean nor an object". A value of no branch's type
 * keeps the union's own message.
 */
function meant(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== 'invalid_union') return issue;
  const branch = issue.errors.find((b) => b[0] !== undefined && !(b[0].code === 'invalid_type' && b[0].path.length === 0));
  return branch === undefined ? issue : meant({ ...branch[0]!, path: [...issue.path, ...branch[0]!.path] });
}

function validate<S extends z.ZodType>(schema: S, value: unknown, path: string): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = r.error.issues.map(meant);
  const first = issues[0]!;
  const keys = first.code === 'unrecognized_keys' ? first.keys : [];
  const full = [path, ...first.path.map(String), ...keys].filter(Boolean).join('.');
  return fail(full, formatIssues(issues));
}

function loadToolLoop(raw: Record<string, unknown>, runTtlMs: number, policy: ToolPolicyBlock | undefined, keyBy: ToolEventKey): ToolLoopConfig {
  const tools = raw.tools;
  const global = isObj(tools) && tools.loopDetection !== undefined ? validate(loopDetectionBlockSchema, tools.loopDetection, 'tools.loopDetection') : {};
  const agents: Record<string, LoopDetectionBlock> = {};
  const list = isObj(raw.agents) ? raw.agents.list : undefined;
  if (list !== undefined && !Array.isArray(list)) fail('agents.list', 'must be an array');
  ((list as unknown[] | undefined) ?? []).forEach((agent, i) => {
    if (!isObj(agent) || !isObj(agent.tools) || agent.tools.loopDetection === undefined) return;
    if (typeof agent.id !== 'string' || agent.id === '') fail(`agents.list.${i}.id`, 'an agent with tools.loopDetection needs a string id');
    const block = validate(loopDetectionBlockSchema, agent.tools.loopDetection, `agents.list.${i}.tools.loopDetection`);
    if (!Object.hasOwn(agents, agent.id as string)) agents[agent.id as string] = block;
  });
  const base = keyBy === 'session' ? { global, agents, runTtlMs, keyBy } : { global, agents, runTtlMs };
  return policy === undefined ? base : { ...base, policy };
}

/** Config from an already-parsed object (tests pass config this way) plus the environment. */
export function configFrom(raw: unknown, env: Readonly<Record<string, string | undefined>> = {}): LoopguardConfig {
  if (raw !== undefined && !isObj(raw)) fail('(root)', 'must be an object');
  const obj = openClawView((raw ?? {}) as Record<string, unknown>);
  const settings = applyEnv(validate(loopguardBlockSchema, obj.loopguard ?? {}, 'loopguard'), env);
  const warnings: string[] = [];
  const botLoop = loadBotLoopConfig(
    obj.channels,
    (path, message) => fail(path, message),
    (w) => warnings.push(w),
  );
  const t = settings.topics;
  return {
    toolLoop: loadToolLoop(obj, settings.runTtlSeconds * 1000, settings.toolPolicy, settings.keyToolEventsBy),
    botLoop: settings.botPolicy === undefined ? botLoop : { ...botLoop, policy: settings.botPolicy },
    settings,
    topics: { toolEvents: t.toolEvents, channelEvents: t.channelEvents, verdicts: t.verdicts, deadLetter: t.deadLetter, changelogPrefix: t.changelogPrefix },
    brokersConfigured: Boolean(env.KAFKA_BROKERS?.trim()) || (isObj(obj.loopguard) && isObj(obj.loopguard.kafka) && obj.loopguard.kafka.brokers !== undefined),
    warnings,
  };
}

type Env = Readonly<Record<string, string | undefined>>;
type Sasl = LoopguardSettings['kafka']['sasl'];

// Every variable loopguard reads is checked like a config key: a bad value refuses to start,
// naming the variable. Set but empty is a bad value, never a silent fallback to the file.
function envVar(env: Env, name: string): string | undefined {
  const v = env[name];
  if (v !== undefined && v.trim() === '') fail(`env.${name}`, 'is set but empty (unset it to use the config file)');
  return v;
}

function envValue<S extends z.ZodType>(schema: S, env: Env, name: string, normalise: (v: string) => unknown = (v) => v): z.output<S> | undefined {
  const v = envVar(env, name);
  if (v === undefined) return undefined;
  const r = schema.safeParse(normalise(v));
  // The variable is one string: an index into what it was split into would mean nothing to a user.
  return r.success ? r.data : fail(`env.${name}`, r.error.issues.map((i) => i.message).join('; '));
}

/** The env credentials over the file's block; env alone (username and password) enables SASL. */
function envSasl(file: Sasl, env: Env): Sasl {
  const mechanism = envValue(saslMechanismSchema, env, 'KAFKA_SASL_MECHANISM', (v) => v.toLowerCase());
  const username = envVar(env, 'KAFKA_SASL_USERNAME');
  const password = envVar(env, 'KAFKA_SASL_PASSWORD');
  if (username !== undefined && password === undefined) fail('env.KAFKA_SASL_PASSWORD', 'must be set when KAFKA_SASL_USERNAME is');
  if (file === undefined) {
    if (username === undefined && (password !== undefined || mechanism !== undefined)) {
      fail('env.KAFKA_SASL_USERNAME', `must be set when ${password !== undefined ? 'KAFKA_SASL_PASSWORD' : 'KAFKA_SASL_MECHANISM'} is (or configure loopguard.kafka.sasl)`);
    }
    return username === undefined ? undefined : { mechanism: mechanism ?? 'scram-sha-512', username, password: password! };
  }
  return { mechanism: mechanism ?? file.mechanism, username: username ?? file.username, password: password ?? file.password };
}

const TLS_ENV = { caFile: 'KAFKA_SSL_CA_FILE', certFile: 'KAFKA_SSL_CERT_FILE', keyFile: 'KAFKA_SSL_KEY_FILE' } as const;
const envBoolean = z.enum(['true', 'false'], { error: 'must be true or false' });

/** The env TLS settings over the file's: KAFKA_SSL switches TLS, any file variable enables it. */
function envTls(file: boolean | TlsFiles, env: Env): boolean | TlsFiles {
  const on = envValue(envBoolean, env, 'KAFKA_SSL', (v) => v.toLowerCase());
  const files: Record<string, string> = {};
  for (const [key, name] of Object.entries(TLS_ENV)) {
    const path = envValue(pemFileSchema(key === 'keyFile' ? 'private key' : 'certificate'), env, name);
    if (path !== undefined) files[key] = path;
  }
  const password = envVar(env, 'KAFKA_SSL_KEY_PASSWORD');
  if (password !== undefined) files.keyPassword = password;
  const named = Object.keys(files);
  if (on === 'false') {
    if (named.length > 0)
      fail('env.KAFKA_SSL', `is false but ${named.map((k) => (k === 'keyPassword' ? 'KAFKA_SSL_KEY_PASSWORD' : TLS_ENV[k as keyof typeof TLS_ENV])).join(', ')} set`);
    return false;
  }
  if (named.length === 0) return on === 'true' && file === false ? true : file;
  const merged: TlsFiles = { ...(typeof file === 'object' ? file : {}), ...files };
  const bad = checkClientKey(merged);
  if (bad !== undefined) {
    const name = bad.key === 'keyPassword' ? 'KAFKA_SSL_KEY_PASSWORD' : TLS_ENV[bad.key as keyof typeof TLS_ENV];
    fail(bad.key in files ? `env.${name}` : `loopguard.kafka.ssl.${bad.key}`, bad.message);
  }
  return merged;
}

function applyEnv(s: LoopguardSettings, env: Env): LoopguardSettings {
  const brokers = envValue(z.array(brokerSchema), env, 'KAFKA_BROKERS', (v) => v.split(',').map((b) => b.trim()));
  const url = envValue(registryUrlSchema, env, 'SCHEMA_REGISTRY_URL');
  const registryCa = envValue(pemFileSchema('certificate'), env, 'SCHEMA_REGISTRY_CA_FILE');
  const level = envValue(logLevelSchema, env, 'LOG_LEVEL', (v) => v.toLowerCase());
  const client = envValue(kafkaClientSchema, env, 'LOOPGUARD_KAFKA_CLIENT', (v) => v.toLowerCase());
  return {
    ...s,
    kafka: { ...s.kafka, brokers: brokers ?? s.kafka.brokers, client: client ?? s.kafka.client, ssl: envTls(s.kafka.ssl, env), sasl: envSasl(s.kafka.sasl, env) },
    schemaRegistry: { ...s.schemaRegistry, url: url ?? s.schemaRegistry.url, ...(registryCa !== undefined ? { caFile: registryCa } : {}) },
    log: { ...s.log, level: level ?? s.log.level },
  };
}

/** Whether LOG_LEVEL asks for debug output; read before any config loads, so a failure of loading can show its stack. */
export function debugRequested(env: Env = process.env): boolean {
  const level = env.LOG_LEVEL?.trim().toLowerCase();
  return level === 'debug' || level === 'trace';
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

/**
 * Where `loopguard start` keeps the Kafka and registry it runs when no broker is configured:
 * LOOPGUARD_STACK_DIR, else the user's cache. Maven artifacts stay in ~/.m2 and the stack's
 * own cache (LOOPGUARD_STACK_CACHE, read by scripts/stack.mjs) between runs.
 */
export function embeddedStackDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (env.LOOPGUARD_STACK_DIR) return env.LOOPGUARD_STACK_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'loopguard', 'stack');
}

// ---- An OpenClaw gateway's config file (openclaw.json) ----
// OpenClaw validates its own file strictly and refuses unknown top-level keys, so there the
// loopguard settings live in the plugin's entry, `plugins.entries.loopguard.config`: the SDK
// client keys the plugin needs (brokers, registry, failure, timeout…), `loopDetection` (the
// tool-loop block loopguard uses instead of the gateway's own `tools.loopDetection`, so the
// in-process detector can be switched off while loopguard's stays on) and `processor` (the
// rest of the `loopguard` block). The processor reads the same entry, so one file serves both.

export const OPENCLAW_PLUGIN_ID = 'loopguard';
export const OPENCLAW_PLUGIN_PATH = `plugins.entries.${OPENCLAW_PLUGIN_ID}.config`;
/** OpenClaw fails a `before_tool_call` handler closed after 15 s: loopguard must answer well before. */
export const OPENCLAW_MAX_TIMEOUT_MS = 10_000;

export const openClawPluginConfigSchema = z.strictObject({
  brokers: d(z.array(brokerSchema).min(1).default(['127.0.0.1:9092']), 'Bootstrap brokers, host:port.'),
  schemaRegistryUrl: d(registryUrlSchema.default('http://127.0.0.1:8081'), 'Confluent-compatible schema registry.'),
  failure: d(z.enum(['open', 'closed']), "What a tool call gets when loopguard does not answer in time: 'open' runs it, 'closed' blocks it."),
  timeoutMs: d(
    z.number().int().positive().max(OPENCLAW_MAX_TIMEOUT_MS).default(2000),
    `How long a tool call waits for loopguard's decision (at most ${OPENCLAW_MAX_TIMEOUT_MS}: OpenClaw's own hook timeout is 15 s).`,
  ),
  schemaRegistryCaFile: d(pemFileSchema('certificate').optional(), "For an https:// registry: a CA certificate (PEM file) to trust instead of the system's."),
  sendRaw: d(z.boolean().default(false), 'Send raw tool arguments and results instead of their hashes.'),
  ssl: d(sslSchema.default(false), "TLS to Kafka: true (the system's CAs), or { caFile, certFile, keyFile, keyPassword } (PEM files)."),
  sasl: d(z.strictObject({ mechanism: saslMechanismSchema, username: z.string(), password: z.string() }).optional(), 'SASL credentials.'),
  clientId: d(z.string().min(1).default('loopguard-openclaw'), 'Kafka client id of the gateway.'),
  kafkaClient: d(
    kafkaClientSchema.default('kafkajs'),
    'Kafka client library of the gateway and of `loopguard run` reading this file: kafkajs or librdkafka, as loopguard.kafka.client.',
  ),
  topics: d(loopguardBlockSchema.shape.topics.optional(), 'Topic names, as loopguard.topics.'),
  botSenderIds: d(
    z.array(z.string().min(1).max(512)).max(10_000).default([]),
    "Sender ids of other bots, as OpenClaw names a message's sender (`id`, or `channel:id` for one channel only): their inbound messages are checked by loopguard's bot-loop guard before the agent sees them, and a suppressed one is dropped without a reply. Every other sender's message is published as a person's (human_message). Empty: inbound messages are not guarded.",
  ),
  loopDetection: d(
    loopDetectionBlockSchema.optional(),
    "loopguard's tool-loop detection, used instead of the gateway's tools.loopDetection (set that one's enabled: false to switch OpenClaw's in-process detector off).",
  ),
  processor: d(loopguardBlockSchema.omit({ kafka: true, schemaRegistry: true, topics: true }).optional(), 'The rest of the loopguard block, read by `loopguard run`.'),
});

export type OpenClawPluginConfig = z.output<typeof openClawPluginConfigSchema>;

/** The plugin's config as OpenClaw hands it over; a bad value throws naming its key. */
export function openClawPluginConfig(raw: unknown): OpenClawPluginConfig {
  return validate(openClawPluginConfigSchema, raw ?? {}, OPENCLAW_PLUGIN_PATH);
}

/**
 * A gateway file seen as loopguard's own: when it has no `loopguard` block but a loopguard
 * plugin entry, that entry supplies the `loopguard` block and, if it sets `loopDetection`, the
 * global tool-loop block (per-agent blocks still apply over it).
 */
function openClawView(raw: Record<string, unknown>): Record<string, unknown> {
  const plugins = raw.plugins;
  const entry = isObj(plugins) && isObj(plugins.entries) ? plugins.entries[OPENCLAW_PLUGIN_ID] : undefined;
  if (raw.loopguard !== undefined || !isObj(entry) || entry.config === undefined) return raw;
  const c = openClawPluginConfig(entry.config);
  const loopguard = {
    ...c.processor,
    // Brokers only when named, so that `loopguard start` still knows whether to run its own.
    kafka: { ...(isObj(entry.config) && entry.config.brokers !== undefined ? { brokers: c.brokers } : {}), ssl: c.ssl, ...(c.sasl ? { sasl: c.sasl } : {}), client: c.kafkaClient },
    schemaRegistry: { url: c.schemaRegistryUrl, ...(c.schemaRegistryCaFile !== undefined ? { caFile: c.schemaRegistryCaFile } : {}) },
    ...(c.topics ? { topics: c.topics } : {}),
  };
  const tools = c.loopDetection === undefined ? raw.tools : { ...(isObj(raw.tools) ? raw.tools : {}), loopDetection: c.loopDetection };
  return { ...raw, tools, loopguard };
}
