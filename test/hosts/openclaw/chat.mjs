// Sends chat messages to a running OpenClaw gateway as one gateway client, with OpenClaw's own
// client (`openclaw/plugin-sdk/gateway-runtime`), the way its apps and CLI do: each message is a
// `chat.send` in a session, and the next is sent once the gateway has finished with it
// (`agent.wait` on its run). OpenClaw names the sender of such a message by the client's id, so
// two clients (`--client cli`, `--client test`, …) are two senders. Runs under Node 24 from this
// folder, where OpenClaw is installed.
//
//   node chat.mjs --url ws://127.0.0.1:PORT --token T --client test --session agent:main:x \
//     --message "hello" [--message …]
// Prints one JSON line per message: {"message", "runId", "status"}. Exit 1 on any failure.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { GatewayClient } from 'openclaw/plugin-sdk/gateway-runtime';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    token: { type: 'string' },
    client: { type: 'string', default: 'test' },
    mode: { type: 'string', default: 'backend' },
    session: { type: 'string' },
    message: { type: 'string', multiple: true, default: [] },
    'timeout-ms': { type: 'string', default: '120000' },
  },
});
if (!values.url || !values.token || !values.session) {
  process.stderr.write("chat.mjs: --url, --token and --session are required\n");
  process.exit(2);
}
const timeoutMs = Number(values['timeout-ms']);

/**
 * A connected client. A busy gateway may drop a connection before its hello (no message was
 * sent on it yet, so trying again is safe): up to five tries.
 */
async function connect() {
  for (let attempt = 1; ; attempt++) {
    try {
      return await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no hello from ${values.url} in ${timeoutMs} ms`)), timeoutMs);
        const c = new GatewayClient({
          url: values.url,
          token: values.token,
          clientName: values.client,
          mode: values.mode,
          requestTimeoutMs: timeoutMs,
          // A gateway's first WebSocket client loads its handlers: on a busy machine that outlasts the 15 s default.
          preauthHandshakeTimeoutMs: timeoutMs,
          connectChallengeTimeoutMs: timeoutMs,
          onHelloOk: () => (clearTimeout(timer), resolve(c)),
          onConnectError: (e) => (clearTimeout(timer), c.stop(), reject(e)),
        });
        c.start();
      });
    } catch (e) {
      if (attempt === 5) throw e;
      process.stderr.write(`chat.mjs: connection ${attempt} failed (${e.message}); trying again\n`);
    }
  }
}

const client = await connect();

try {
  for (const message of values.message) {
    const sent = await client.request('chat.send', { sessionKey: values.session, message, idempotencyKey: randomUUID() });
    const runId = sent?.runId;
    const done = runId ? await client.request('agent.wait', { runId, timeoutMs }) : undefined;
    process.stdout.write(`${JSON.stringify({ message, runId, sent: sent?.status, status: done?.status })}\n`);
  }
} finally {
  await client.stopAndWait({ timeoutMs: 5000 }).catch(() => client.stop());
}
