// What a topic's values look like in Avro, and avsc, loaded the first time a codec's Avro type is needed: commands that never touch the
// wire (`replay`, `demo`) do not pay for it at start-up.
import { createRequire } from 'node:module';
import type avro from 'avsc';

export interface ValueCodec<T = unknown> {
  readonly name: string;
  readonly schema: avro.Schema;
  readonly type: avro.Type;
  toAvro(value: T): unknown;
  fromAvro(record: unknown): T;
}

const require = createRequire(import.meta.url);
let loaded: typeof avro | undefined;

/** An Avro type built on first use. */
export function lazyType(schema: avro.Schema): () => avro.Type {
  let type: avro.Type | undefined;
  return () => (type ??= (loaded ??= require('avsc') as typeof avro).Type.forSchema(schema));
}
