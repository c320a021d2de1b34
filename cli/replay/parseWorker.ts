// A parse worker: chunks of whole lines in, parsed and hashed events (and the chunk's buffer) out on the results port
// (counted in `posted`, which wakes a waiting reader). Validation and hashing depend on the
// tool-loop config only (the profiles it selects, its loopKeys): a topology built with the same
// parses exactly as the main one.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { buildTopology } from '../../topology/build.js';
import { configFrom } from '../../topology/config.js';
import type { ToolLoopConfig } from '../../processors/toolLoop/config.js';
import { Packer } from './handover.js';
import { parseChunk, splitParsing } from './parse.js';

const { results, posted, toolLoop } = workerData as { results: MessagePort; posted: Int32Array; toolLoop: ToolLoopConfig };
const topology = buildTopology({ ...configFrom({}), toolLoop });
splitParsing();
const packer = new Packer();

// Ready: chunks go to a worker only from now on, so none waits for a worker still loading.
results.postMessage({ ready: true });
Atomics.add(posted, 0, 1);
Atomics.notify(posted, 0);

parentPort!.on('message', (m: { seq: number; chunk: Uint8Array<ArrayBuffer> }) => {
  // The chunk's buffer goes back with its results, for the next chunk.
  results.postMessage({ seq: m.seq, packed: packer.pack(parseChunk(topology, m.chunk)), buffer: m.chunk.buffer }, [m.chunk.buffer]);
  Atomics.add(posted, 0, 1);
  Atomics.notify(posted, 0);
});
