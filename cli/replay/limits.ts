// Sizes of replay's parse workers, apart from the pool so that `--help` does not load it.

/**
 * A worker's old generation is capped at this size. Its live heap is its code, the topology and
 * the hashing memo (processors/toolLoop/argsMemo.ts), 6-8 MB on the standard streams; but with
 * V8's default limit its old space grew with the length of the input (13 MB of old space at 100k
 * raw events, 24 MB at 500k), and replay's max RSS with a worker was 1.2x at 1M events what it
 * was at 100k; with this cap 1.11-1.12x, and 1.07-1.10x once each parsing thread's memo held
 * 128 KB instead of 1 MB (SPLIT_MEMO_CHARS) (issue 11; the sixth round, in `git log -p bench/README.md`).
 * Lines too long for it are parsed on the folding thread (MAX_WORKER_CHUNK_BYTES); a worker
 * that runs out of memory anyway (a lower `--worker-heap`, or input that outgrows it) fails with
 * ERR_WORKER_OUT_OF_MEMORY, and the Window parses its chunks on the folding thread instead.
 */
export const WORKER_OLD_SPACE_MB = 12;

/**
 * The smallest `--worker-heap` accepted. Below it Node 22 and 24 cannot even start a worker: V8
 * runs out of memory while deserializing the worker's start-up snapshot, a fatal error that ends
 * the whole process (not a worker error replay could survive). Measured on Node 20.20, 22.23 and
 * 24.22: 2 MB fails that way on 22 and 24 every time; 3 and 4 MB start, and a worker that then runs
 * out of memory fails alone (ERR_WORKER_OUT_OF_MEMORY). 4 keeps a margin.
 */
export const MIN_WORKER_HEAP_MB = 4;
