// `loopguard tail`: decisions from the control topic, readable or as JSON lines.
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { decisionCodec } from '../../schemas/codecs.js';
import { connect } from '../connect.js';
import { LineWriter } from '../jsonLines.js';
import { formatDecision } from '../render.js';
import type { Context } from '../context.js';
import { configOption } from '../options.js';

const nonNegative = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`${name} must be a non-negative number`);
  return n;
};

export function registerTail(program: Command, ctx: Context): void {
  program
    .command('tail')
    .description('Print decisions from the control topic as they arrive (read-committed).')
    .addOption(configOption())
    .option('--json', 'one JSON decision per line', false)
    .option('--from-beginning', 'start at the oldest retained decision instead of new ones', false)
    .option('--max <n>', 'stop after this many decisions', nonNegative('--max'))
    .option('--timeout <seconds>', 'stop after this many seconds without a new decision (counted from when tail has joined the topic\'s partitions)', nonNegative('--timeout'))
    .action(async (opts: { config?: string; json: boolean; fromBeginning: boolean; max?: number; timeout?: number }) => {
      const config = ctx.config(opts);
      const log = ctx.logger(config, 'tail');
      const { kafka, catalog } = connect(config, log, '-tail');
      const consumer = kafka.groupConsumer(`loopguard-tail-${randomUUID()}`, { topics: [config.topics.verdicts], fromBeginning: opts.fromBeginning, readCommitted: true });
      const out = new LineWriter(process.stdout, 1);
      let seen = 0;
      let lastAt = Date.now();
      let done = false;
      let finish!: () => void;
      const finished = new Promise<void>((r) => { finish = () => { done = true; r(); }; });
      process.once('SIGINT', () => finish());
      process.once('SIGTERM', () => finish());
      await consumer.run({
        // The idle clock starts once tail reads: joining the group is not time without decisions.
        onAssigned: () => { lastAt = Date.now(); },
        onBatch: async (b) => {
          let last: number | undefined;
          for (const r of b.records) {
            if (opts.max !== undefined && seen >= opts.max) break;
            const d = await catalog.decode(r.value, decisionCodec);
            if (opts.json) await out.write(d);
            else process.stdout.write(formatDecision(d) + '\n');
            seen++;
            lastAt = Date.now();
            last = r.offset;
          }
          if (opts.max !== undefined && seen >= opts.max) finish();
          return last;
        },
      });
      if (opts.max === 0) finish();
      const idle = async () => {
        while (opts.timeout !== undefined && !done) {
          await delay(200);
          if (Date.now() - lastAt > opts.timeout * 1000) return finish();
        }
      };
      void idle();
      await finished;
      await out.flush();
      await consumer.stop();
      await kafka.close();
    });
}
