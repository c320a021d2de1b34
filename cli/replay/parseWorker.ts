// A parse worker: chunks of whole lines in, parsed and hashed events (and the chunk's buffer) out on the results port
// (counted in `posted`, which wakes a waiting reader). Validation and hashing depend on config
// only in whether outcomes are hashed for the openclaw profile too: a topology that does the same
// parses exactly as the main one.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { buildTopology } from '../../topology/build.js';
import { configFrom } from '../../topology/config.js';
import { Packer } from './handover.js';
import { parseChunk, splitParsing } from './parse.js';

const { results, posted, openclaw } = workerData as { results: MessagePort; posted: Int32Array; openclaw: boolean };
const topology = buildTopology(configFrom(openclaw ? { tools: { loopDetection: { profile: 'openclaw' } } } : {}));
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
