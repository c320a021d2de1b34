// Schema-registry framed Avro values (magic byte, schema id, Avro body: the bytes
// SchemaCatalog.encode gives), written one after the other into shared slabs. catalog.encode
// allocates and copies each value twice (avsc's zero-filled result, then the framed copy);
// here a value costs its encoding and a view. A view keeps its slab alive until every record
// written into it is dropped: slabs are small, and a batch's records go out within the batch.
import type { ValueCodec } from '../../schemas/avro.js';
import { compileEncoder, type AvroEncode } from '../../schemas/avroWriter.js';

/** Big enough for a few hundred decisions; a larger value gets a slab of its own size. */
const SLAB_BYTES = 64 * 1024;
const HEADER_BYTES = 5;

/** Each Avro type's compiled encoder (avsc's bytes, written faster: see avroWriter.ts). */
const encoders = new WeakMap<ValueCodec['type'], AvroEncode>();
function encoderOf(type: ValueCodec['type']): AvroEncode {
  let encode = encoders.get(type);
  if (encode === undefined) encoders.set(type, (encode = compileEncoder(type)));
  return encode;
}

export class FramedWriter {
  private slab = Buffer.allocUnsafe(0);
  private used = 0;
  /** Where the value tryWrite wrote last ends. */
  private end = 0;
  private schemaId = -1;

  /** Frames the values written from now on with `schemaId` (the registered id of their subject). */
  useSchema(schemaId: number): void {
    this.schemaId = schemaId;
  }

  /** `value`, Avro-encoded with `codec` behind the header; throws what avsc throws for a value the schema refuses. */
  write<T>(codec: ValueCodec<T>, value: T): Buffer {
    if (this.schemaId < 0) throw new Error('FramedWriter: useSchema before write');
    const avro = codec.toAvro(value);
    const encode = encoderOf(codec.type);
    // A value that does not fit in what is left of the slab goes first in a new one, of its
    // own size if it is larger (known after the first try, the second at the latest).
    for (let attempt = 0; ; attempt++) {
      const needed = this.tryWrite(encode, avro);
      if (needed === 0) return this.view();
      if (attempt === 2) throw new Error(`FramedWriter: a value still needs ${needed} bytes in a slab sized for it`);
      this.slab = Buffer.allocUnsafe(Math.max(SLAB_BYTES, needed));
      this.used = 0;
    }
  }

  /** Writes at `used`; 0 once written (`end` set), else the bytes the value needs in all. */
  private tryWrite(encode: AvroEncode, avro: unknown): number {
    const start = this.used;
    const room = this.slab.length - start;
    if (room < HEADER_BYTES) return SLAB_BYTES;
    this.slab[start] = 0;
    this.slab.writeUInt32BE(this.schemaId, start + 1);
    const end = encode(avro, this.slab, start + HEADER_BYTES);
    if (end < 0) return this.slab.length - end - start; // avsc: -(bytes missing)
    this.end = end;
    return 0;
  }

  private view(): Buffer {
    const value = this.slab.subarray(this.used, this.end);
    this.used = this.end;
    return value;
  }
}
