// A parse worker: chunks of whole lines in, parsed and hashed events out. Validation and
// hashing do not depend on config, so the default topology parses exactly as the main one.
import { parentPort } from 'node:worker_threads';
import { buildTopology } from '../../topology/build.js';
import { configFrom } from '../../topology/config.js';
import { parseChunk } from './parse.js';

const topology = buildTopology(configFrom({}));

parentPort!.on('message', (m: { seq: number; chunk: Uint8Array }) => {
  parentPort!.postMessage({ seq: m.seq, parsed: parseChunk(topology, m.chunk) });
});
