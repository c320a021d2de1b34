// Whatever a producer sends, the partition task never throws, and every valid request gets
// exactly one decision: the property behind "no record may stop a partition".
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildTopology } from './build.js';
import { configFrom } from './config.js';
import { PartitionTask } from './task.js';

const NOW = 1_700_000_000_000;
const topology = buildTopology(
  configFrom({
    tools: { loopDetection: { enabled: true, warningThreshold: 2, criticalThreshold: 3 } },
    channels: { defaults: { botLoopProtection: { maxEventsPerWindow: 2, maxConversationBotEvents: 3 } } },
    loopguard: {
      toolPolicy: { escalation: { abortAfterBlocks: 2 }, transientErrors: true, tools: { 'e*': { poll: true }, constructor: { exempt: true } } },
      botPolicy: { slowLoop: { maxBotMessages: 3, horizonSeconds: 600 }, humanReset: true, hopLimit: { maxOutgoing: 2 }, channels: { constructor: { mode: 'shadow' } } },
    },
  }),
);
const [toolNode, botNode] = topology.nodes;
// The early preset (docs/behaviour.md §7) works out identities and progress hashes from the raw values, and reads loopKeys.
const [earlyNode] = buildTopology(
  configFrom({
    tools: { loopDetection: { enabled: true, profile: 'early', historySize: 5 } },
    loopguard: { toolPolicy: { escalation: { abortAfterBlocks: 2 }, tools: { 'e*': { poll: true, loopKey: ['__proto__', 'p'] }, constructor: { loopKey: false } } } },
  }),
).nodes;

const PROTO_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
const hostileString = fc.oneof(
  fc.constantFrom(...PROTO_NAMES, '', ' ', '\u0000', '\uD800', 'a'.repeat(300)),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 10 }),
);
const hostileNumber = fc.oneof(
  fc.constantFrom(0, -1, 1.5, 2 ** 53, 2 ** 53 - 1, -(2 ** 53), 1e14, 1e14 + 1, 1e300, -0, Number.MAX_VALUE, Number.MIN_VALUE, NOW, NOW + 1e9),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const nested = (depth: number): unknown => {
  let v: unknown = { leaf: 1 };
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { k: v };
  return v;
};
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  hostileNumber,
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 4 }),
  fc.constantFrom(nested(600), nested(5000)),
  fc.dictionary(fc.constantFrom(...PROTO_NAMES, 'name', 'message', 'details', 'content', 'status'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
);

const TOOL_FIELDS = [
  'type',
  'ts',
  'eventId',
  'sessionKey',
  'runId',
  'agentId',
  'toolCallId',
  'toolName',
  'args',
  'argsHash',
  'action',
  'result',
  'error',
  'resultHash',
  'unknownToolName',
  'loopKey',
  'identityHash',
  'progressHash',
  'turnId',
  ...PROTO_NAMES,
];
const BOT_FIELDS = ['type', 'ts', 'eventId', 'channel', 'accountId', 'conversationId', 'senderId', 'receiverId', 'hopLimit', ...PROTO_NAMES];

/** A mostly valid event with some fields replaced by hostile values, or dropped. */
const mangled = (base: fc.Arbitrary<Record<string, unknown>>, fields: readonly string[]) =>
  fc.tuple(base, fc.dictionary(fc.constantFrom(...fields), fc.oneof(hostileValue, fc.constant(undefined)), { maxKeys: 3 })).map(([b, over]) => {
    const out: Record<string, unknown> = JSON.parse(JSON.stringify(b));
    for (const [k, v] of Object.entries(over)) Object.defineProperty(out, k, { value: v, enumerable: true, configurable: true, writable: true });
    return out;
  });

const ts = fc.integer({ min: NOW - 100_000, max: NOW + 400_000 });
const toolBase = fc.record(
  {
    type: fc.constantFrom('tool_call', 'tool_outcome', 'compaction', 'run_end'),
    ts,
    runId: fc.constantFrom('r1', 'r2', '__proto__'),
    toolName: fc.constantFrom('read', 'exec', 'process', 'constructor'),
    args: fc.constantFrom({ p: 1 }, { action: 'poll' }, [1], { p: ' A/ ' }),
    result: fc.constantFrom('same', { details: { status: 'running' } }, { at: '10:00:00', createdAt: 1 }),
    loopKey: fc.constantFrom(['p'], false, ['__proto__']),
    turnId: fc.constantFrom('t1', 't2'),
    eventId: fc.constantFrom('e1', 'e2', 'toString'),
  },
  { requiredKeys: ['type', 'ts', 'runId', 'toolName', 'args'] },
);
const botBase = fc.record(
  {
    type: fc.constantFrom('bot_message', 'bot_message', 'human_message'),
    ts,
    channel: fc.constantFrom('slack', 'constructor'),
    accountId: fc.constant('T'),
    conversationId: fc.constantFrom('C', '__proto__'),
    senderId: fc.constantFrom('A', 'B', 'hasOwnProperty'),
    receiverId: fc.constantFrom('A', 'B'),
    eventId: fc.constantFrom('m1', 'm2'),
    hopLimit: fc.constantFrom(0, 1, 2, 5),
  },
  { requiredKeys: ['type', 'ts', 'channel', 'accountId', 'conversationId', 'senderId', 'receiverId'] },
);

const isRequest = (type: unknown) => type === 'tool_call' || type === 'bot_message';

describe('hostile input through the partition task', () => {
  it.each([
    ['tool events', () => toolNode!, mangled(toolBase, TOOL_FIELDS)],
    ['bot and human messages', () => botNode!, mangled(botBase, BOT_FIELDS)],
    ['any JSON value', () => toolNode!, hostileValue],
    ['tool events, the early preset', () => earlyNode!, mangled(toolBase, TOOL_FIELDS)],
  ] as const)('%s: never throws, and every valid request gets exactly one decision', (_name, node, arb) => {
    fc.assert(
      fc.property(fc.array(arb as fc.Arbitrary<unknown>, { minLength: 1, maxLength: 40 }), (values) => {
        const task = new PartitionTask(node(), 0, { maxFutureSkewMs: 300_000, now: () => NOW });
        values.forEach((value, offset) => {
          const valid = node().parse(value).ok;
          const r = task.process({ topic: 't', partition: 0, offset, value });
          if (!valid) {
            expect(r.kind).toBe('invalid');
            return;
          }
          if (r.kind === 'invalid') {
            expect(r.code).toBe('future_timestamp');
            return;
          }
          expect(r.kind).toBe('decided');
          if (r.kind !== 'decided') return;
          const type = (value as { type: unknown }).type;
          const answers = r.decisions.filter((d) => d.type === 'tool_decision' || d.type === 'bot_decision');
          expect(answers).toHaveLength(isRequest(type) ? 1 : 0);
          for (const d of r.decisions) expect(d.id).toMatch(/\S/);
        });
      }),
      { numRuns: 300 },
    );
  });
  it('dead-letters an event more than the skew ahead of the clock, so it cannot sweep other keys', () => {
    const task = new PartitionTask(toolNode!, 0, { maxFutureSkewMs: 300_000, now: () => NOW });
    expect(task.process({ topic: 't', partition: 0, offset: 0, value: { type: 'tool_call', ts: NOW + 300_001, runId: 'r', toolName: 'x', args: {} } })).toMatchObject({
      kind: 'invalid',
      code: 'future_timestamp',
    });
    expect(task.process({ topic: 't', partition: 0, offset: 1, value: { type: 'tool_call', ts: NOW + 300_000, runId: 'r', toolName: 'x', args: {} } }).kind).toBe('decided');
    expect(task.time).toBe(NOW + 300_000);
  });
});
