// `loopguard produce`: JSON-lines events to the right topic, key and partition, Avro-encoded.
import type { Command } from 'commander';
import { partitionFor } from '../../topology/partitioner.js';
import { buildTopology } from '../../topology/build.js';
import { route } from '../../topology/topology.js';
import { ERROR_CODES, LoopguardError } from '../../topology/errors.js';
import type { OutRecord } from '../../topology/runtime/kafka.js';
import { registerSchemas, wiringOf } from '../../topology/runtime/wiring.js';
import { connect } from '../connect.js';
import { openInput, readJsonLines } from '../jsonLines.js';
import type { Context } from '../main.js';
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
        const sender = await kafka.producer();
        const input = openInput(file);
        const progress = progressBar(input.size, 'produce');
        let batch: OutRecord[] = [];
        let sent = 0;
        let invalid = 0;
        try {
          for await (const line of readJsonLines(input.stream, progress.add)) {
            const routed = 'error' in line ? { ok: false as const, reason: line.error } : route(topology, line.value);
            if (!routed.ok) {
              invalid++;
              if (!opts.skipInvalid) throw new LoopguardError(ERROR_CODES.eventInvalid, `line ${line.lineNo}: ${routed.reason}`, { line: line.lineNo });
              log.warn({ line: line.lineNo, reason: routed.reason }, 'skipped invalid event');
              continue;
            }
            const { node, event } = routed;
            const value = (line as { value: Record<string, unknown> }).value;
            batch.push({
              topic: node.inputTopic,
              partition: partitionFor(node.process.keyOf(event), counts.get(node.inputTopic)!),
              key: node.messageKeyOf(event),
              value: catalog.encode(node.inputTopic, wiringOf(node).input, value),
            });
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
