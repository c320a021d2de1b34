// A session's first connection, made once before any of its clients connects. librdkafka
// retries a refused connection by itself, and a client's connect reports only "Broker transport
// failure" once its 30 s timeout is over; the reason is in its log (the SASL error, the OpenSSL
// error, the state the broker hung up in). This admin client listens to that log and ends as
// soon as a line says a secured broker refused it, or a listing of topics succeeds. Anything
// else — a broker not up yet — is left to the clients' own retries.
import type { LoopguardSettings } from '../../config.js';
import type { LoopguardError } from '../../errors.js';
import { authenticationFailed, diagnoseClosed, tlsFailed, tlsProblemOfText } from '../refusals.js';
import { call, type RdConfig } from './client.js';
import type { RdKafka } from './native.js';

/**
 * How long the check waits before it leaves a silent broker to the clients' retries. Also how
 * long the check's client may outlive a refusal: librdkafka's destroy waits for a request in
 * flight, so it is disconnected only once its listing has ended.
 */
const PREFLIGHT_MS = 2_000;

type Kafka = LoopguardSettings['kafka'];

/** librdkafka's log line, less its thread and broker prefixes and its "(after 3ms in state …)" tail. */
const reasonOf = (line: string) => line.replace(/^\[thrd:[^\]]*\]: \S+: /, '').replace(/ \(after \d+ms in state [^)]*\)$/, '');

/**
 * What a librdkafka log line says was refused: now (a refusal), after a look at the broker (it
 * hung up), or nothing.
 */
export function refusalInLog(k: Kafka, line: string): LoopguardError | 'closedBeforeAnswer' | 'closedAfterHandshake' | undefined {
  const reason = reasonOf(line);
  let m = /SASL authentication error: (.*)/.exec(reason);
  if (m) return authenticationFailed(k, m[1]!);
  m = /SASL handshake failed[^:]*: (.*)/.exec(reason);
  if (m) return authenticationFailed(k, m[1]!);
  m = /SSL handshake failed: (.*)/.exec(reason);
  if (m) return tlsFailed(k, tlsProblemOfText(m[1]!), m[1]!.replace(/: broker certificate could not be verified.*/, ''));
  if (/closed by peer/.test(line)) {
    if (/in state APIVERSION_QUERY/.test(line)) return 'closedBeforeAnswer';
    if (/in state UP/.test(line)) return 'closedAfterHandshake';
  }
  return undefined;
}

export async function preflight(rd: RdKafka, base: RdConfig, settings: Pick<LoopguardSettings, 'kafka'>): Promise<void> {
  const k = settings.kafka;
  let diagnosis: Promise<LoopguardError | undefined> | undefined;
  let refuse!: (e: LoopguardError) => void;
  const refused = new Promise<LoopguardError>((resolve) => (refuse = resolve));
  const admin = rd.AdminClient.create(
    { ...base, 'log.connection.close': true } as never,
    {
      'event.log': (l: { message: string }) => {
        const found = refusalInLog(k, l.message);
        if (found === undefined) return;
        if (typeof found === 'object') return refuse(found);
        // The broker hung up: looked into once (librdkafka meanwhile keeps reconnecting).
        diagnosis ??= diagnoseClosed(k, found === 'closedAfterHandshake').then((e) => {
          if (e !== undefined) refuse(e);
          return e;
        });
      },
      // Its error events repeat what the log says, less precisely; the log is read instead.
      'event.error': () => undefined,
    } as never,
  );
  const listed = call('cannot list topics', (cb) => admin.listTopics({ timeout: PREFLIGHT_MS }, cb)).then(
    () => undefined,
    () => 'failed' as const,
  );
  try {
    const first = await Promise.race([listed, refused]);
    if (typeof first === 'object') throw first;
    const diagnosed = first === 'failed' ? await diagnosis : undefined;
    if (diagnosed !== undefined) throw diagnosed;
  } finally {
    void listed.then(() => admin.disconnect());
  }
}
