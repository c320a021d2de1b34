// Integration helpers that own their world: unique topics, group and subjects per test, child
// processes and consumers cleaned up by the helper that made them, waits on facts.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, inject } from 'vitest';
import { decisionCodec } from '../../schemas/codecs.js';
import { SchemaCatalog } from '../../schemas/registry.js';
import { configFrom, type LoopguardConfig } from '../../topology/config.js';
import { createLogger } from '../../topology/logger.js';
import { connectKafka } from '../../topology/runtime/connect.js';
import type { KafkaSession } from '../../topology/runtime/port.js';

const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'loopguard-it-'));
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  rmSync(dir, { recursive: true, force: true });
});

export type InfraEnv = { readonly KAFKA_BROKERS: string; readonly SCHEMA_REGISTRY_URL: string; readonly LOOPGUARD_KAFKA_CLIENT?: string };

/** The Kafka client every command, session and SDK client of the integration project runs on (LOOPGUARD_TEST_KAFKA_CLIENT). */
export const testKafkaClient = (): 'kafkajs' | 'librdkafka' => inject('kafkaClient');

// A file may point its helpers at a stack of its own (the fault tests restart their broker);
// module state is per test file, so this never leaks into another file.
let ownInfra: InfraEnv | undefined;

/** Points this file's worlds and commands at another broker and registry (undefined: back to the shared ones). */
export function useInfra(env: InfraEnv | undefined): void {
  ownInfra = env;
}

export const infraEnv = (): InfraEnv => ({
  ...(ownInfra ?? { KAFKA_BROKERS: inject('kafkaBrokers'), SCHEMA_REGISTRY_URL: inject('registryUrl') }),
  LOOPGUARD_KAFKA_CLIENT: testKafkaClient(),
});

export interface World {
  readonly name: string;
  readonly configFile: string;
  readonly config: LoopguardConfig;
}

/** The SDK client options of a world: the test broker and registry, and its topics. */
export const clientOptions = (w: World, failure: 'open' | 'closed', timeoutMs = 15_000) => ({
  brokers: [infraEnv().KAFKA_BROKERS],
  schemaRegistryUrl: infraEnv().SCHEMA_REGISTRY_URL,
  topics: w.config.topics,
  failure,
  timeoutMs,
});

/** A config with topics, group and subjects of its own. */
export function world(label: string, extra: Record<string, unknown> = {}, partitions = 3, settings: Record<string, unknown> = {}): World {
  const name = `it-${label}-${randomUUID().slice(0, 8)}`;
  const raw = {
    tools: { loopDetection: { enabled: true } },
    ...extra,
    loopguard: {
      topics: {
        toolEvents: `${name}.tool-events`,
        channelEvents: `${name}.channel-events`,
        verdicts: `${name}.verdicts`,
        deadLetter: `${name}.dead-letter`,
        changelogPrefix: `${name}.`,
        partitions,
      },
      consumer: { groupId: `${name}-group`, sessionTimeoutMs: 8000 },
      log: { level: 'info' },
      http: { port: 0, host: '127.0.0.1' },
      ...settings,
    },
  };
  const configFile = join(dir, `${name}.json`);
  writeFileSync(configFile, JSON.stringify(raw));
  return { name, configFile, config: configFrom(raw, infraEnv()) };
}

export function writeEvents(name: string, events: readonly object[]): string {
  const file = join(dir, `${name}.jsonl`);
  writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  return file;
}

export interface Run {
  readonly child: ChildProcess;
  readonly output: () => string;
  exited(): Promise<number | null>;
}

/** Starts a `loopguard` command as a child process; it is killed at the end of the file. */
export function lg(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn('node', [CLI, ...args], { env: { ...process.env, ...infraEnv(), LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exit;
    }
  });
  return { child, output: () => out, exited: () => exit };
}

export async function lgOk(args: string[]): Promise<string> {
  const r = lg(args);
  const code = await r.exited();
  if (code !== 0) throw new Error(`loopguard ${args.join(' ')} exited ${code}:\n${r.output()}`);
  return r.output();
}

const SERVING = /"port":(\d+),"host":"[^"]*","msg":"serving \/metrics/;

/** The port a `loopguard run` serves its probes on (it is started with http.port 0). */
export async function httpPort(run: Run): Promise<number> {
  await waitFor('the HTTP endpoints', () => SERVING.test(run.output()));
  return Number(SERVING.exec(run.output())![1]);
}

/** Waits until `loopguard run` answers /readyz with 200: group joined, every assigned partition restored. */
export async function ready(run: Run, timeoutMs = 90_000): Promise<number> {
  const port = await httpPort(run);
  const readyz = () =>
    fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
  await waitFor(
    '/readyz',
    async () => {
      if (run.child.exitCode !== null) throw new Error(`loopguard run exited ${run.child.exitCode} before it was ready:\n${run.output()}`);
      return readyz();
    },
    timeoutMs,
  );
  return port;
}

export async function waitFor(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(50);
  }
}

export function session(w: World): { kafka: KafkaSession; catalog: SchemaCatalog } {
  const kafka = connectKafka(w.config.settings, createLogger({ log: { level: 'warn', redact: true } }, 'test'), '-test');
  cleanups.push(() => kafka.close());
  return { kafka, catalog: SchemaCatalog.connect(w.config.settings.schemaRegistry) };
}

export interface Collected {
  /** First copy of each decision, by id. */
  readonly byId: Map<string, Record<string, unknown>>;
  /** Later copies (redeliveries) with the first copy they repeat. */
  readonly duplicates: Array<{ first: Record<string, unknown>; again: Record<string, unknown> }>;
}

/** Reads the decision topic from the beginning, as long as the test runs (read-committed). */
export async function collectDecisions(w: World): Promise<Collected> {
  const { kafka, catalog } = session(w);
  const collected: Collected = { byId: new Map(), duplicates: [] };
  const consumer = kafka.groupConsumer(`${w.name}-reader-${randomUUID().slice(0, 6)}`, { topics: [w.config.topics.verdicts], fromBeginning: true, readCommitted: true });
  cleanups.unshift(() => consumer.stop().catch(() => {}));
  await consumer.run({
    onBatch: async (b) => {
      for (const r of b.records) {
        const d = await catalog.decode(r.value, decisionCodec);
        const first = collected.byId.get(d.id as string);
        if (first === undefined) collected.byId.set(d.id as string, d);
        else collected.duplicates.push({ first, again: d });
      }
      return b.records.at(-1)?.offset;
    },
  });
  return collected;
}

/** The replay of the same input: what the Kafka runtime must produce. */
export async function replayOf(w: World, eventsFile: string): Promise<Map<string, Record<string, unknown>>> {
  const out = await lgOk(['replay', '--config', w.configFile, eventsFile]);
  const lines = out.split('\n').filter((l) => l.startsWith('{"type"'));
  return new Map(lines.map((l) => JSON.parse(l) as Record<string, unknown>).map((d) => [d.id as string, d]));
}
