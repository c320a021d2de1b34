// Schema ids and Avro types on the wire, through a Confluent-compatible schema registry.
// Values use the Confluent wire format (magic byte 0, 4-byte schema id, Avro binary). Schemas
// are registered under `<topic>-value` with an explicit compatibility mode; ids are looked up
// once; records written with another (compatible) schema are resolved into ours.
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { setTimeout as delay } from 'node:timers/promises';
import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import type avro from 'avsc';
import { TimeoutMiddleware } from 'mappersmith/middleware/timeout';
import { ERROR_CODES, LoopguardError } from '../topology/errors.js';
import type { ValueCodec } from './codecs.js';

export { COMPATIBILITY };

export const DECODE_FAILURES = { magicByte: 'bad_magic_byte', unknownSchema: 'unknown_schema_id', avro: 'avro_decode_failed', contract: 'contract_mismatch' } as const;
export type DecodeFailure = (typeof DECODE_FAILURES)[keyof typeof DECODE_FAILURES];

export class DecodeError extends Error {
  override readonly name = 'DecodeError';
  constructor(
    readonly reason: DecodeFailure,
    message: string,
  ) {
    super(message);
  }
}

export const subjectOf = (topic: string) => `${topic}-value`;

/**
 * A value's Avro body without the wire header: it needs no registry, so a client can encode
 * (and refuse an invalid value) before it knows the schema's id, and frame it later.
 */
export const avroBody = <T>(codec: ValueCodec<T>, value: T): Buffer => codec.type.toBuffer(codec.toAvro(value));

/** The schema id a framed value names; throws a DecodeError for a value that is not framed. */
function schemaIdOf(buffer: Buffer | null): number {
  if (buffer === null || buffer.length < 5 || buffer[0] !== 0)
    throw new DecodeError(
      DECODE_FAILURES.magicByte,
      `value does not start with the Confluent magic byte 0 (${buffer === null ? 'null value' : `first byte ${buffer[0]}, ${buffer.length} bytes`})`,
    );
  return buffer.readUInt32BE(1);
}

/** Attempts of one registration that keeps meeting a concurrent one. */
const REGISTER_ATTEMPTS = 8;

/** The subject-config calls of the registry client's API. */
interface SubjectConfigApi {
  readonly Subject: {
    config(args: { subject: string }): Promise<{ data(): { compatibilityLevel?: string } }>;
    updateConfig(args: { subject: string; body: { compatibility: string } }): Promise<unknown>;
  };
}

/** A subject whose compatibility someone set to another level than loopguard needs. */
class CompatibilityConflict extends Error {
  constructor(subject: string, found: string, wanted: string) {
    super(`${subject} has compatibility ${found}, loopguard needs ${wanted}`);
  }
}

/**
 * conflict: another registration of the same subject got in the way, try again now;
 * unreachable: the registry did not answer (the client reports that as status 400), try
 * again later; refused: the registry said no (an incompatible schema, a wrong URL).
 */
function registrationFailure(e: unknown): 'conflict' | 'unreachable' | 'refused' {
  if (e instanceof CompatibilityConflict) return 'refused';
  const status = (e as { status?: number }).status;
  const message = (e as Error).message ?? '';
  // Both registries answer an incompatible schema with 409 too.
  if (/incompatib|RuleViolation/i.test(message)) return 'refused';
  if (status === 409 || /already exists|!= NONE\)/i.test(message)) return 'conflict';
  if (status === undefined || status >= 500 || status === 408 || status === 429) return 'unreachable';
  // A certificate not trusted, or TLS not spoken where it was asked for: the same next time.
  if (/certificate|self[- ]signed|wrong version number|EPROTO/i.test(message)) return 'refused';
  if (status === 400 && /ECONN|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE|socket|timeout/i.test(message)) return 'unreachable';
  return 'refused';
}

export class SchemaCatalog {
  private readonly ids = new Map<string, number>();
  /** Per reader type, per writer schema id: the type or resolver to decode with. */
  private readonly readers = new WeakMap<avro.Type, Map<number, avro.Type | avro.Resolver>>();
  private readonly headers = new Map<number, Buffer>();

  constructor(readonly registry: SchemaRegistry) {}

  /**
   * Every registry request is bounded: a registry that hangs counts as down, not as slow.
   * `caFile`: for an https:// registry, the CA to trust instead of the system's.
   */
  static connect(registry: { readonly url: string; readonly caFile?: string | undefined }, timeoutMs = 5_000): SchemaCatalog {
    // Its idle sockets are unref'd (Node's keep-alive agent), so they never hold a process up.
    const agent = registry.caFile !== undefined && registry.url.startsWith('https:') ? new Agent({ keepAlive: true, ca: readFileSync(registry.caFile) }) : undefined;
    return new SchemaCatalog(
      new SchemaRegistry({
        host: registry.url,
        retry: { retries: 2, initialRetryTimeInSecs: 0.2 },
        middlewares: [TimeoutMiddleware(timeoutMs) as never], // same mappersmith, generics differ
        ...(agent !== undefined ? { agent } : {}),
      }),
    );
  }

  /**
   * Registers `codec`'s schema for `topic` under `compatibility` and remembers its id.
   * Idempotent, and safe when several processes register the same fresh subject at once: the
   * registry client's check → register → set-compatibility is not atomic, so the
   * compatibility is settled first and conflicts from a concurrent registration are retried
   * with jittered backoff. Throws a LoopguardError, retriable when the registry did not answer.
   */
  async register(topic: string, codec: ValueCodec, compatibility: COMPATIBILITY): Promise<number> {
    const subject = subjectOf(topic);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.settleCompatibility(subject, compatibility);
        const { id } = await this.registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(codec.schema) }, { subject, compatibility });
        this.ids.set(subject, id);
        // The registry gives one id to one schema, so values written with this id need no
        // lookup: the first record of a producer that uses loopguard's own schema (the SDK,
        // the CLI) decodes without waiting for the registry.
        this.readersOf(codec.type).set(id, codec.type);
        return id;
      } catch (e) {
        const failure = registrationFailure(e);
        if (failure === 'conflict' && attempt < REGISTER_ATTEMPTS) {
          await delay(Math.min(2_000, 50 * 2 ** attempt) * (0.5 + Math.random()));
          continue;
        }
        throw new LoopguardError(ERROR_CODES.schemaRegistry, `cannot register the schema of ${subject}: ${(e as Error).message}`, { subject }, failure !== 'refused', { cause: e });
      }
    }
  }

  /**
   * Gives `subject` the compatibility loopguard needs, unless it has another one already. NONE
   * counts as unset: Apicurio reports NONE, its global default, for a subject without a rule
   * of its own, which is what a concurrent registration shows between its register and its
   * set-compatibility. Setting it twice, or concurrently, is fine.
   */
  private async settleCompatibility(subject: string, wanted: COMPATIBILITY): Promise<void> {
    const api = (this.registry as unknown as { api: SubjectConfigApi }).api.Subject; // not public in the client, same version pinned
    const current = async () => {
      try {
        return ((await api.config({ subject })).data().compatibilityLevel ?? '').toUpperCase();
      } catch (e) {
        if ((e as { status?: number }).status === 404) return undefined;
        throw e;
      }
    };
    const before = await current();
    if (before === wanted) return;
    if (before !== undefined && before !== COMPATIBILITY.NONE) throw new CompatibilityConflict(subject, before, wanted);
    try {
      await api.updateConfig({ subject, body: { compatibility: wanted } });
    } catch (e) {
      // A concurrent writer created the rule first: what counts is what holds now.
      if ((e as { status?: number }).status !== 409 && !/already exists/i.test((e as Error).message)) throw e;
      const now = await current();
      if (now !== wanted) throw new CompatibilityConflict(subject, now ?? 'none', wanted);
    }
  }

  idFor(topic: string): number {
    const id = this.ids.get(subjectOf(topic));
    if (id === undefined) throw new Error(`no schema registered for ${topic} (register before encoding)`);
    return id;
  }

  encode<T>(topic: string, codec: ValueCodec<T>, value: T): Buffer {
    return this.frame(topic, avroBody(codec, value));
  }

  /** A value's Avro body (from `avroBody`) framed with the id of `topic`'s schema. */
  frame(topic: string, body: Buffer): Buffer {
    const id = this.idFor(topic);
    let header = this.headers.get(id);
    if (header === undefined) {
      header = Buffer.alloc(5);
      header.writeUInt32BE(id, 1);
      this.headers.set(id, header);
    }
    return Buffer.concat([header, body]);
  }

  /** Decodes a wire value into `codec`'s type, resolving from the writer's schema when it differs. */
  async decode<T>(buffer: Buffer | null, codec: ValueCodec<T>): Promise<T> {
    const id = schemaIdOf(buffer);
    return this.decodeWith(buffer!, id, await this.readerFor(id, codec), codec);
  }

  /**
   * `decode` without a promise, for a value whose writer schema this catalog has resolved
   * before: undefined when it has not (then `decode` asks the registry). Throws as `decode`
   * does. The hot path of `run`, where a promise per record was a fair share of the work.
   */
  decodeCached<T>(buffer: Buffer | null, codec: ValueCodec<T>): T | undefined {
    const id = schemaIdOf(buffer);
    const reader = this.readers.get(codec.type)?.get(id);
    return reader === undefined ? undefined : this.decodeWith(buffer!, id, reader, codec);
  }

  private decodeWith<T>(buffer: Buffer, id: number, reader: avro.Type | avro.Resolver, codec: ValueCodec<T>): T {
    let record: unknown;
    try {
      // type.fromBuffer(buffer.subarray(5)), without a view per value: the same reads, the same errors.
      const { value, offset } = 'fromBuffer' in reader ? reader.decode(buffer, 5) : codec.type.decode(buffer, 5, reader);
      if (offset === -1) throw new Error('truncated buffer');
      if (offset < buffer.length) throw new Error('trailing data');
      record = value;
    } catch (e) {
      throw new DecodeError(DECODE_FAILURES.avro, `Avro payload does not decode with schema ${id}: ${(e as Error).message}`);
    }
    try {
      return codec.fromAvro(record);
    } catch (e) {
      throw new DecodeError(DECODE_FAILURES.contract, `decoded record does not map to ${codec.name}: ${(e as Error).message}`);
    }
  }

  private readersOf(type: avro.Type): Map<number, avro.Type | avro.Resolver> {
    let byId = this.readers.get(type);
    if (byId === undefined) this.readers.set(type, (byId = new Map()));
    return byId;
  }

  private async readerFor(id: number, codec: ValueCodec): Promise<avro.Type | avro.Resolver> {
    const byId = this.readersOf(codec.type);
    const cached = byId.get(id);
    if (cached !== undefined) return cached;
    let writer: avro.Type;
    try {
      writer = (await this.registry.getSchema(id)) as unknown as avro.Type;
    } catch (e) {
      const status = (e as { status?: number }).status;
      if (status === 404 || /not found/i.test((e as Error).message)) throw new DecodeError(DECODE_FAILURES.unknownSchema, `schema id ${id} is not in the registry`);
      throw e;
    }
    let reader: avro.Type | avro.Resolver;
    try {
      reader = writer.equals(codec.type) ? codec.type : codec.type.createResolver(writer);
    } catch (e) {
      throw new DecodeError(DECODE_FAILURES.avro, `schema id ${id} cannot be read as ${codec.name}: ${(e as Error).message}`);
    }
    byId.set(id, reader);
    return reader;
  }
}
