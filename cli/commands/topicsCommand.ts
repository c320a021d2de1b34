import type { Command } from 'commander';
import { buildTopology } from '../../topology/build.js';
import { topicSpecs } from '../../topology/runtime/wiring.js';
import { connect } from '../connect.js';
import type { Context } from '../context.js';
import { configOption } from '../options.js';

export function registerTopics(program: Command, ctx: Context): void {
  const topics = program.command('topics').description("Manage loopguard's topics.");
  topics
    .command('create')
    .description('Create the input, decision, dead-letter and changelog topics that do not exist yet (partitions and replication from config).')
    .addOption(configOption())
    .option('--dry-run', 'print what would be created', false)
    .action(async (opts: { config?: string; dryRun: boolean }) => {
      const config = ctx.config(opts);
      const log = ctx.logger(config, 'topics');
      const specs = topicSpecs(config, buildTopology(config));
      if (opts.dryRun) {
        for (const s of specs)
          process.stdout.write(
            `${s.topic}\tpartitions=${s.partitions}\treplication=${s.replicationFactor}${
              s.config
                ? `\t${Object.entries(s.config)
                    .map(([k, v]) => `${k}=${v}`)
                    .join(',')}`
                : ''
            }\n`,
          );
        return;
      }
      const { kafka } = connect(config, log);
      try {
        const created = await kafka.createTopics(specs);
        for (const s of specs) process.stdout.write(`${created.includes(s.topic) ? 'created' : 'exists '}\t${s.topic}\n`);
      } finally {
        await kafka.close();
      }
    });
}
