#!/usr/bin/env node
// A simulated Slack dispatcher using the loopguard SDK: two bots answer each other in a
// storm; loopguard suppresses the pair after 20 messages in a minute, and the dispatcher then
// answers from its local cooldown without waiting. Run it like examples/agent-runner.mjs.
import { LoopguardDispatcher } from 'loopguard';
import { loadConfig } from '../dist/topology/config.js';

const config = loadConfig(process.env.LOOPGUARD_CONFIG);
const dispatcher = await LoopguardDispatcher.connect({
  brokers: config.settings.kafka.brokers,
  schemaRegistryUrl: config.settings.schemaRegistry.url,
  topics: config.topics,
  failure: 'open',
  timeoutMs: 5000,
});

const t0 = Date.now();
const channel = `C0STORM${t0}`;
let delivered = 0;
let suppressed = 0;
for (let i = 0; i < 30; i++) {
  const [from, to] = i % 2 ? ['B0TRIAGE', 'B0DEPLOY'] : ['B0DEPLOY', 'B0TRIAGE'];
  const v = await dispatcher.inbound({
    channel: 'slack',
    context: { accountId: 'T0ACME', botId: to },
    payload: {
      type: 'event_callback',
      team_id: 'T0ACME',
      event: { type: 'message', subtype: 'bot_message', channel, bot_id: from, text: `re: re: alert ${i}`, ts: ((t0 + i * 200) / 1000).toFixed(6) },
    },
  });
  if (v.deliver) delivered++;
  else suppressed++;
  console.log(`message ${String(i + 1).padStart(2)} ${from} → ${to}: ${v.deliver ? 'deliver' : `suppress (${v.reason}, answered by ${v.answeredBy})`}`);
}
console.log(`${delivered} delivered, ${suppressed} suppressed`);
await dispatcher.close();
