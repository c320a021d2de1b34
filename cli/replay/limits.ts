// Sizes of replay's parse workers, apart from the pool so that `--help` does not load it.

/**
 * A worker's old generation is capped at this size. Its live heap is its code, the topology and
 * the hashing memo (processors/toolLoop/argsMemo.ts), 6-8 MB on the standard streams; but with
 * V8's default limit its old space grew with the length of the input (13 MB of old space at 100k
 * raw events, 24 MB at 500k), and replay's max RSS with a worker was 1.2x at 1M events what it
 * was at 100k; with this cap 1.11-1.12x, and 1.07-1.10x once each parsing thread's memo held
 * 128 KB instead of 1 MB (SPLIT_MEMO_CHARS) (bench/README.md, issue 11).
 * Lines too long for it are parsed on the folding thread (MAX_WORKER_CHUNK_BYTES); a worker
 * that runs out of memory anyway (a lower `--worker-heap`, or input that outgrows it) fails with
 * ERR_WORKER_OUT_OF_MEMORY, and the Window parses its chunks on the folding thread instead.
 */
export const WORKER_OLD_SPACE_MB = 12;
