#!/usr/bin/env node
// CPU per record of kafkajs's produce path as loopguard drives it, with and without the
// replacements in topology/runtime/kafkajs/patches.ts: grouping a request's messages by
// partition, then encoding the Produce request (records, record batch, CRC). No broker: the
// same work on the same bytes, so the ratio holds on a busy machine. Rounds alternate the two.
//
//   npm run build && node bench/kafkajs-encode.mjs [--rounds 3] [--records 2000]
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { helpFromHeader } from './lib/help.mjs';

helpFromHeader(import.meta.filename);

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, records: { type: 'string', default: '2000' }, child: { type: 'string' } } });
const RECORDS = Number(values.records);

if (values.child !== undefined) {
  if (values.child === 'patched') await import('../dist/topology/runtime/kafkajs/patches.js');
  const require = createRequire(import.meta.url);
  const group = require('kafkajs/src/producer/groupMessagesPerPartition.js');
  const produce = require('kafkajs/src/protocol/requests/produce/v3/request.js');
  // A slice of decisions of one partition: ~250-byte values, keys of a few hundred runs.
  const value = Buffer.alloc(250, 7);
  const messages = Array.from({ length: RECORDS }, (_, i) => ({ topic: 'verdicts', partition: 0, key: `run-${i % 333}`, value }));
  const partitioner = ({ message }) => message.partition;
  const once = async () => {
    const per = group({ topic: 'verdicts', partitionMetadata: [{}], messages, partitioner });
    const req = produce({ acks: -1, timeout: 30_000, topicData: [{ topic: 'verdicts', partitions: [{ partition: 0, firstSequence: 0, messages: per[0] }] }] });
    return (await req.encode()).buffer.length;
  };
  for (let i = 0; i < 20; i++) await once();
  const requests = Math.max(20, Math.round(120_000 / RECORDS));
  const start = process.cpuUsage();
  let bytes = 0;
  for (let i = 0; i < requests; i++) bytes += await once();
  const used = process.cpuUsage(start);
  process.stdout.write(JSON.stringify({ usPerRecord: (used.user + used.system) / (requests * RECORDS), bytesPerRequest: bytes / requests }) + '\n');
  process.exit(0);
}

const run = (mode) => JSON.parse(spawnSync(process.execPath, [import.meta.filename, '--child', mode, '--records', String(RECORDS)], { encoding: 'utf8' }).stdout);
const samples = { original: [], patched: [] };
for (let r = 0; r < Number(values.rounds); r++) {
  for (const mode of r % 2 === 0 ? ['original', 'patched'] : ['patched', 'original']) {
    const s = run(mode);
    samples[mode].push(s);
    console.log(`round ${r + 1} ${mode}: ${s.usPerRecord.toFixed(2)} µs CPU per record (${Math.round(s.bytesPerRequest)} bytes per request)`);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const [o, p] = [median(samples.original.map((s) => s.usPerRecord)), median(samples.patched.map((s) => s.usPerRecord))];
console.log(`${RECORDS}-record requests: kafkajs ${o.toFixed(2)} µs per record, with patches.ts ${p.toFixed(2)} (${(p / o).toFixed(2)}×)`);
