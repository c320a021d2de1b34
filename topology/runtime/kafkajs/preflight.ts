// A session's first connection, made once before any of its clients connects. kafkajs retries
// every failed connection for ~20 s, a TLS handshake that failed included, and reports a broker
// that closes the connection as "Closed connection"; this connection is not retried, and it asks
// for what a secured broker checks first (the handshake, authentication, then any request), so
// a refusal ends a session's start at once, saying what was refused. Anything else — a broker
// not up yet, a slow one — is left to the clients' own retries.
import type { LoopguardSettings } from '../../config.js';
import { LoopguardError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { diagnoseClosed } from '../refusals.js';
import { createClient, refusalOf, rootOf } from './client.js';

/** How long the check waits before it leaves a silent broker to the clients' retries. */
const PREFLIGHT_MS = 4_000;

export async function preflight(settings: Pick<LoopguardSettings, 'kafka'>, log: Logger, clientSuffix: string): Promise<void> {
  // A client of its own: kafkajs retries connections as often as the client's `retry` says.
  const kafka = createClient(settings, log, clientSuffix, 0);
  const admin = kafka.admin({ retry: { retries: 0 } });
  // The handshake a SASL listener answers before authentication (ApiVersions) went through.
  let handshake = false;
  let timer: NodeJS.Timeout | undefined;
  const check = (async () => {
    await admin.connect();
    handshake = true;
    await admin.describeCluster(); // a Metadata request: any authenticated client may make it
  })();
  try {
    await Promise.race([check, new Promise<void>((resolve) => (timer = setTimeout(resolve, PREFLIGHT_MS)))]);
  } catch (e) {
    const where = `cannot connect to Kafka at ${settings.kafka.brokers.join(',')}`;
    const refused = refusalOf(where, e, kafka) ?? (isClosed(e) ? await diagnoseClosed(settings.kafka, handshake, e) : undefined);
    if (refused instanceof LoopguardError) throw refused;
  } finally {
    clearTimeout(timer);
    check.catch(() => undefined);
    void admin.disconnect().catch(() => undefined);
  }
}

/** The broker hung up without an answer (not: refused the connection, or timed out). */
function isClosed(e: unknown): boolean {
  const root = rootOf(e) as { name?: string; code?: string; message?: string };
  return root.name === 'KafkaJSConnectionClosedError' || root.code === 'ECONNRESET' || root.code === 'EPIPE' || /Closed connection/.test(root.message ?? '');
}
