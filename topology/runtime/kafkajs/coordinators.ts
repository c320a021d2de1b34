// kafkajs asks the cluster for the transaction coordinator (a FindCoordinator request) before
// each of a transaction's AddPartitionsToTxn, AddOffsetsToTxn and EndTxn, and for the group
// coordinator before its TxnOffsetCommit: 4 of the 9 round trips every transaction waited for.
// The Java client looks a coordinator up once and again only after a request to it fails; so
// does a producer made here. Only a producer: a consumer group's own lookups are left alone.
import type { KafkaClient } from './client.js';

/** The description of the symbol under which a kafkajs `Kafka` keeps its cluster factory. */
const CREATE_CLUSTER = 'private:Kafka:createCluster';

interface CoordinatorQuery {
  readonly groupId: string;
  readonly coordinatorType?: number;
}

interface Cluster {
  findGroupCoordinator(q: CoordinatorQuery): Promise<object>;
}

type ClusterFactory = (...args: unknown[]) => Cluster;

/**
 * Runs `create` (which must make its kafkajs client synchronously, as `kafka.producer()` does)
 * so that the cluster it gets remembers coordinators. A kafkajs without that factory gets no
 * cache: every lookup goes to the broker, as before.
 */
export function withCachedCoordinators<T>(kafka: KafkaClient, create: () => T): T {
  const holder = kafka as unknown as Record<symbol, ClusterFactory>;
  const key = Object.getOwnPropertySymbols(kafka).find((s) => s.description === CREATE_CLUSTER);
  const original = key === undefined ? undefined : holder[key];
  if (key === undefined || typeof original !== 'function') return create();
  holder[key] = (...args) => cachingCoordinators(original(...args));
  try {
    return create();
  } finally {
    holder[key] = original;
  }
}

/** `cluster`, its coordinator lookups cached until a request to the coordinator fails. */
export function cachingCoordinators<C extends Cluster>(cluster: C): C {
  const find = cluster.findGroupCoordinator.bind(cluster);
  const known = new Map<string, Promise<object>>();
  cluster.findGroupCoordinator = (q) => {
    const key = `${q.coordinatorType ?? 0}\t${q.groupId}`;
    const cached = known.get(key);
    if (cached !== undefined) return cached;
    const forget = () => {
      if (known.get(key) === found) known.delete(key);
    };
    const found = find(q).then((broker) => forgettingOnFailure(broker, forget));
    found.catch(forget);
    known.set(key, found);
    return found;
  };
  return cluster;
}

/**
 * Whether a failed request says nothing about who the coordinator is: a Kafka error code
 * that does not name a coordinator (CONCURRENT_TRANSACTIONS, which the previous
 * transaction's commit causes, above all). A lost connection or a coordinator error does.
 */
const keepsCoordinator = (e: unknown): boolean => {
  const type = (e as { type?: unknown } | null)?.type;
  return typeof type === 'string' && !type.includes('COORDINATOR');
};

/**
 * `broker` whose method calls, when they fail in a way that may mean the coordinator moved
 * (NOT_COORDINATOR, a lost connection...), make the next lookup ask the cluster again.
 * kafkajs retries the failed call itself.
 */
function forgettingOnFailure<B extends object>(broker: B, forget: () => void): B {
  return new Proxy(broker, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        try {
          const result: unknown = value.apply(target, args);
          if (result instanceof Promise) return result.catch((e: unknown) => (keepsCoordinator(e) || forget(), Promise.reject(e)));
          return result;
        } catch (e) {
          if (!keepsCoordinator(e)) forget();
          throw e;
        }
      };
    },
  });
}
