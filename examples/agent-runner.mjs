#!/usr/bin/env node
// A simulated agent runner using the loopguard SDK against a running stack:
//   npm run stack:up && set -a && . .stack/env && set +a
//   npx loopguard topics create && npx loopguard run &     # the processor
//   node examples/agent-runner.mjs
// An agent re-reads the same file until loopguard blocks it, then a second run keeps failing the
// same test after a context compaction and is aborted. LOOPGUARD_CONFIG picks the topics.
import { LoopguardRunner } from 'loopguard';
import { loadConfig } from '../dist/topology/config.js';

const config = loadConfig(process.env.LOOPGUARD_CONFIG);
const runner = await LoopguardRunner.connect({
  brokers: config.settings.kafka.brokers,
  schemaRegistryUrl: config.settings.schemaRegistry.url,
  topics: config.topics,
  failure: 'open',
  timeoutMs: 5000,
  onAbort: (a) => console.log(`run ${a.runKey} aborted by loopguard: ${a.message}`),
});

const stamp = Date.now();
const stuck = { sessionKey: `agent:demo:${stamp}`, runId: `demo-stuck-${stamp}`, agentId: 'main' };
for (let i = 1; i <= 25; i++) {
  const call = { ...stuck, toolName: 'read', args: { path: 'src/config.ts' } };
  const v = await runner.beforeToolCall(call);
  console.log(`call ${String(i).padStart(2)} read src/config.ts → ${v.decision}${v.notify && v.message ? `: ${v.message}` : ''}`);
  if (v.decision === 'block') break; // the runner returns v.message to the model as the tool result
  await runner.afterToolCall({ ...call, toolCallId: v.toolCallId }, { result: { content: [{ type: 'text', text: 'export const retries = 3;' }] } });
}
await runner.runEnded(stuck);

const looping = { sessionKey: `agent:demo:${stamp}:2`, runId: `demo-compaction-${stamp}`, agentId: 'main' };
await runner.compacted(looping);
for (let i = 1; i <= 4 && !runner.abortOf(looping); i++) {
  const call = { ...looping, toolName: 'exec', args: { command: 'npm test' } };
  const v = await runner.beforeToolCall(call);
  console.log(`after compaction, call ${i} exec npm test → ${v.decision}`);
  if (v.decision === 'block') break;
  await runner.afterToolCall({ ...call, toolCallId: v.toolCallId }, { result: { details: { status: 'failed', exitCode: 1, aggregated: 'FAIL src/app.test.ts' } } });
  for (let wait = 0; wait < 50 && i === 3 && !runner.abortOf(looping); wait++) await new Promise((r) => setTimeout(r, 100));
}
console.log(runner.abortOf(looping) ? 'the compaction loop was stopped' : 'no abort seen');
await runner.close();
