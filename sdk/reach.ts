// Is Kafka there at all? A TCP connect to the bootstrap brokers answers in milliseconds when
// nothing listens, where the Kafka clients retry their connects for tens of seconds before
// they give up: the client learns of an outage in time to answer calls by its policy at once.
import { connect } from 'node:net';
import { ERROR_CODES, LoopguardError } from '../topology/errors.js';

/** `host:port`, `[v6]:port`. */
export function hostPort(broker: string): { host: string; port: number } {
  const at = broker.lastIndexOf(':');
  const host = broker.slice(0, at).replace(/^\[(.*)\]$/, '$1');
  return { host, port: Number(broker.slice(at + 1)) };
}

function listens(broker: string, ms: number): Promise<void> {
  const { host, port } = hostPort(broker);
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const done = (e?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (e === undefined) resolve();
      else reject(e);
    };
    const timer = setTimeout(() => done(new Error(`no answer in ${ms} ms`)), ms);
    socket.once('connect', () => done());
    socket.once('error', (e) => done(e));
  });
}

/** No broker accepted a TCP connection: retriable, naming the brokers and how each refused. */
export class NothingListens extends LoopguardError {}

/**
 * Resolves once one of the brokers accepts a TCP connection; rejects with a NothingListens
 * when none does within `ms`.
 */
export async function someBrokerListens(brokers: readonly string[], ms: number): Promise<void> {
  const tries = brokers.map((b) => listens(b, ms));
  try {
    await Promise.any(tries);
  } catch (e) {
    const why = (e as AggregateError).errors.map((x: Error) => (x as NodeJS.ErrnoException).code ?? x.message);
    throw new NothingListens(ERROR_CODES.kafka, `cannot connect to Kafka at ${brokers.join(',')}: ${[...new Set(why)].join(', ')}`, { brokers }, true);
  }
}
