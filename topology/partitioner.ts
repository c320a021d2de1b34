// Kafka's default key partitioner (Java client, murmur2 of the key bytes), used both by the
// in-memory driver and by the producer the runtime and `loopguard produce` use, so a replay
// places every key in the same partition, at the same offset, as the broker would.

const M = 0x5bd1e995;

/** murmur2 of the first `length` bytes of `data`. */
export function murmur2(data: Uint8Array, length = data.length): number {
  let h = 0x9747b28c ^ length;
  const length4 = length >>> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k = (data[i4]! & 0xff) | ((data[i4 + 1]! & 0xff) << 8) | ((data[i4 + 2]! & 0xff) << 16) | ((data[i4 + 3]! & 0xff) << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const tail = length & ~3;
  switch (length & 3) {
    case 3:
      h ^= (data[tail + 2]! & 0xff) << 16; // falls through
    case 2:
      h ^= (data[tail + 1]! & 0xff) << 8; // falls through
    case 1:
      h ^= data[tail]! & 0xff;
      h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

// Keys are encoded into one reused buffer: this runs once per event, and a Buffer per key was a
// visible share of replay's allocation. ASCII (every key loopguard makes itself) is copied by
// hand, which is its UTF-8; anything else is encoded. Three bytes per UTF-16 unit suffice.
let scratch = Buffer.allocUnsafe(1024);

export function partitionFor(key: string, partitions: number): number {
  if (key.length * 3 > scratch.length) scratch = Buffer.allocUnsafe(key.length * 3);
  let length = key.length;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c > 0x7f) {
      length = scratch.write(key, 0, 'utf8');
      break;
    }
    scratch[i] = c;
  }
  return (murmur2(scratch, length) & 0x7fffffff) % partitions;
}
