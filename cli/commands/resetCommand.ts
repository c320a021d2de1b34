// `loopguard reset`: replay by resetting offsets, for a stopped group. State is always rebuilt
// from the beginning of the input (changelogs are cleared), so state before the reset point is
// rebuilt, not forgotten; decisions are published again only from the reset point on. The
// decision topic is never touched.
import { InvalidArgumentError, type Command } from 'commander';
import { buildTopology } from '../../topology/build.js';
import { ERROR_CODES, LoopguardError } from '../../topology/errors.js';
import { EMIT_FROM_HEADER, EMIT_FROM_KEY } from '../../topology/runtime/partitionWorker.js';
import { topicSpecs } from '../../topology/runtime/wiring.js';
import { connect } from '../connect.js';
import type { Context } from '../context.js';
import { configOption } from '../options.js';

interface Target {
  topic: string;
  partition: number;
  offset: number;
}

const parseTarget = (v: string, prev: Target[] = []): Target[] => {
  const m = /^(.+):(\d+):(\d+)$/.exec(v);
  if (!m) throw new InvalidArgumentError(`--to-offset takes TOPIC:PARTITION:OFFSET, got ${v}`);
  return [...prev, { topic: m[1]!, partition: Number(m[2]), offset: Number(m[3]) }];
};

const parseDate = (v: string): number => {
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) throw new InvalidArgumentError(`--to-datetime takes an ISO-8601 date-time, got ${v}`);
  return ms;
};

export function registerReset(program: Command, ctx: Context): void {
  program
    .command('reset')
    .description(
      'Replay history for a stopped consumer group: rebuild state from the start of the input, publish decisions again from the chosen point. Prints the plan first; changes nothing without --yes.',
    )
    .addOption(configOption())
    .option('--to-earliest', 'publish every decision again from the start of the input')
    .option('--to-datetime <iso>', 'publish decisions again for events appended at or after this time', parseDate)
    .option('--to-offset <topic:partition:offset>', 'publish again from this input offset (repeatable; other partitions resume where they are)', parseTarget)
    .option('--dry-run', 'print the plan and change nothing', false)
    .option('--yes', 'apply the plan', false)
    .action(async (opts: { config?: string; toEarliest?: boolean; toDatetime?: number; toOffset?: Target[]; dryRun: boolean; yes: boolean }) => {
      const chosen = [opts.toEarliest, opts.toDatetime, opts.toOffset].filter((x) => x !== undefined).length;
      if (chosen !== 1) throw new LoopguardError(ERROR_CODES.usage, 'choose exactly one of --to-earliest, --to-datetime, --to-offset');
      const config = ctx.config(opts);
      const log = ctx.logger(config, 'reset');
      const topology = buildTopology(config);
      const groupId = config.settings.consumer.groupId;
      const { kafka } = connect(config, log, '-reset');
      try {
        const members = await kafka.groupMembers(groupId);
        if (members > 0) throw new LoopguardError(ERROR_CODES.usage, `consumer group ${groupId} has ${members} active member(s); stop every \`loopguard run\` of it first`);
        const plan: Array<{ topic: string; partition: number; committed: number; rebuildFrom: number; emitFrom: number }> = [];
        for (const node of topology.nodes) {
          const topic = node.inputTopic;
          const [marks, committed] = [await kafka.watermarks(topic), await kafka.committedOffsets(groupId, topic)];
          const at = opts.toDatetime !== undefined ? await kafka.offsetsForTime(topic, opts.toDatetime) : undefined;
          for (const [partition, { low, high }] of [...marks].sort((a, b) => a[0] - b[0])) {
            const current = committed.get(partition) ?? -1;
            const given = opts.toOffset?.find((t) => t.topic === topic && t.partition === partition)?.offset;
            const emitFrom = opts.toEarliest ? low : at !== undefined ? at.get(partition)! : (given ?? (current < 0 ? low : current));
            plan.push({ topic, partition, committed: current, rebuildFrom: low, emitFrom: Math.min(Math.max(emitFrom, low), high) });
          }
        }
        const changelogs = topology.nodes.map((n) => n.store.changelogTopic);
        const out = process.stdout;
        out.write(`Reset plan for consumer group ${groupId}:\n`);
        for (const p of plan)
          out.write(
            `  ${p.topic}[${p.partition}]  committed ${p.committed < 0 ? 'none' : p.committed} → rebuild state from ${p.rebuildFrom}, publish decisions from ${p.emitFrom}\n`,
          );
        out.write(
          `  clear state: delete and recreate ${changelogs.join(', ')}\n  untouched: ${config.topics.verdicts} (decisions already published stay; re-published ones have the same ids)\n`,
        );
        if (opts.dryRun) {
          out.write('Dry run: nothing changed.\n');
          return;
        }
        if (!opts.yes) throw new LoopguardError(ERROR_CODES.usage, 'nothing changed; run again with --yes to apply this plan');

        await kafka.deleteTopics(changelogs);
        await kafka.createTopics(topicSpecs(config, topology).filter((s) => changelogs.includes(s.topic)));
        const sender = await kafka.producer();
        const markers = plan
          .filter((p) => p.emitFrom > p.rebuildFrom)
          .map((p) => ({
            topic: topology.nodeForTopic(p.topic)!.store.changelogTopic,
            partition: p.partition,
            key: EMIT_FROM_KEY,
            value: null,
            headers: { [EMIT_FROM_HEADER]: String(p.emitFrom) },
          }));
        await sender.send(markers);
        for (const node of topology.nodes) {
          const offsets = new Map(plan.filter((p) => p.topic === node.inputTopic).map((p) => [p.partition, p.rebuildFrom]));
          await kafka.setCommittedOffsets(groupId, node.inputTopic, offsets);
        }
        log.info({ groupId, partitions: plan.length, markers: markers.length }, 'reset applied');
        out.write('Reset applied. Start `loopguard run` to rebuild and publish.\n');
      } finally {
        await kafka.close();
      }
    });
}
