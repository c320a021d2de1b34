// `loopguard produce`: JSON-lines events to the right topic, key and partition, Avro-encoded.
import type { Command } from 'commander';
import { partitionFor } from '../../topology/partitioner.js';
import { buildTopology } from '../../topology/build.js';
import { route } from '../../topology/topology.js';
import { ERROR_CODES, LoopguardError } from '../../topology/errors.js';
import type { OutRecord } from '../../topology/runtime/port.js';
import { registerSchemas } from '../../topology/runtime/wiring.js';
import { connect } from '../connect.js';
import { openInput, readJsonLines } from '../jsonLines.js';
import type { Context } from '../context.js';
import { configOption } from '../options.js';
import { progressBar } from '../progress.js';

const BATCH = 1000;

export function registerProduce(program: Command, ctx: Context): void {
  program
    .command('produce')
    .description('Validate JSON-lines events (SPEC §1) and publish each to its topic with its key and partition, Avro-encoded (Confluent wire format).')
    .argument('[file]', 'events file, or - for stdin', '-')
    .addOption(configOption())
    .option('--skip-invalid', 'report invalid lines on stderr and continue (default: stop at the first, after publishing the lines before it)', false)
    .action(async (file: string, opts: { config?: string; skipInvalid: boolean }) => {
      const config = ctx.config(opts);
      const log = ctx.logger(config, 'produce');
      const topology = buildTopology(config);
      const { kafka, catalog } = connect(config, log, '-produce');
      try {
        await registerSchemas(catalog, topology);
        const counts = await kafka.partitionCounts(topology.nodes.map((n) => n.inputTopic));
        for (const n of topology.nodes) if (!counts.has(n.inputTopic)) throw new LoopguardError(ERROR_CODES.kafka, `topic ${n.inputTopic} does not exist (create it with \`loopguard topics create\`)`);
        // A line that validates may still fail to encode (JSON too deep to stringify, say): it is
        // that line's error, named like a validation error.
        const prepare = (value: unknown): { ok: true; record: OutRecord } | { ok: false; reason: string } => {
          const routed = route(topology, value);
          if (!routed.ok) return routed;
          const { node, event } = routed;
          try {
            return {
              ok: true,
              record: {
                topic: node.inputTopic,
                partition: partitionFor(node.process.keyOf(event), counts.get(node.inputTopic)!),
                key: node.messageKeyOf(event),
                value: catalog.encode(node.inputTopic, node.codecs.input, value as Record<string, unknown>),
              },
            };
          } catch (e) {
            return { ok: false, reason: `cannot be encoded: ${(e as Error).message}` };
          }
        };
        const sender = await kafka.producer();
        const input = openInput(file);
        const progress = progressBar(input.size, 'produce');
        let batch: OutRecord[] = [];
        let sent = 0;
        let invalid = 0;
        try {
          for await (const line of readJsonLines(input.stream, progress.add)) {
            const prepared = 'error' in line ? { ok: false as const, reason: line.error } : prepare(line.value);
            if (!prepared.ok) {
              invalid++;
              if (!opts.skipInvalid) throw new LoopguardError(ERROR_CODES.eventInvalid, `line ${line.lineNo}: ${prepared.reason}`, { line: line.lineNo });
              log.warn({ line: line.lineNo, reason: prepared.reason }, 'skipped invalid event');
              continue;
            }
            batch.push(prepared.record);
            if (batch.length >= BATCH) { await sender.send(batch); sent += batch.length; batch = []; }
          }
        } finally {
          await sender.send(batch);
          sent += batch.length;
          progress.stop();
          log.info({ sent, invalid }, 'produce finished');
        }
      } finally {
        await kafka.close();
      }
    });
}
