// Restoring state from changelogs: it ends by offsets, whatever the changelog's tail holds,
// and a stop during a restore that cannot progress still ends the process promptly.
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import avro from 'avsc';
import kafkajs from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { initialRunState } from '../processors/toolLoop/state.js';
import { toolLoopStateCodec } from '../schemas/codecs.js';
import { COMPATIBILITY } from '../schemas/registry.js';
import { infraEnv, lg, lgOk, session, waitFor, world, type Run, type World } from './helpers/harness.js';

const changelogOf = (w: World) => `${w.config.topics.changelogPrefix}tool-loop-runs-changelog`;

async function readyz(run: Run): Promise<number> {
  const m = /"port":(\d+),"host":"127.0.0.1","msg":"serving/.exec(run.output());
  if (m === null) return 0;
  return (await fetch(`http://127.0.0.1:${m[1]}/readyz`)).status;
}

describe('exactly-once restore', () => {
  it('completes and turns ready when a changelog partition holds only an aborted transaction', async () => {
    const w = world('restore-aborted', {}, 3, { processing: { guarantee: 'exactly_once' } });
    await lgOk(['topics', 'create', '--config', w.configFile]);
    // A producer that wrote a changelog entry and aborted: only the record and the abort marker.
    const client = new kafkajs.Kafka({ brokers: [infraEnv().KAFKA_BROKERS], logLevel: kafkajs.logLevel.NOTHING });
    const zombie = client.producer({ transactionalId: `${w.name}-zombie`, idempotent: true, maxInFlightRequests: 1 });
    await zombie.connect();
    const tx = await zombie.transaction();
    await tx.send({ topic: changelogOf(w), messages: [{ partition: 0, key: 'r', value: Buffer.from('never committed') }] });
    await tx.abort();
    await zombie.disconnect();
    // The coordinator writes the abort marker after it answers the abort: until then a
    // read-committed end offset stays before the record.
    const { kafka } = session(w);
    const watermarks = async () => (await kafka.watermarks(changelogOf(w))).get(0);
    await waitFor('the abort marker on the changelog', async () => (await watermarks())?.high === 2);
    expect(await watermarks()).toEqual({ low: 0, high: 2 });

    const run = lg(['run', '--config', w.configFile]);
    await waitFor('/readyz to answer 200', async () => (await readyz(run)) === 200);
    expect(run.output()).toMatch(new RegExp(`"topic":"${w.config.topics.toolEvents}","partitions":\\[0,1,2\\],"records":0,"ms":\\d+,"msg":"state restored from changelog"`));
  });
});

/**
 * A registry in front of the real one that never answers a lookup of a schema in `held`: a
 * restore that needs one cannot finish, so a process that ends did so because it was told to,
 * not because the restore completed. `answered` counts the held lookups it did answer (none).
 */
async function holdingRegistry(held: () => ReadonlySet<number>): Promise<{ url: string; reached: Promise<void>; answered: () => number }> {
  const upstream = new URL(infraEnv().SCHEMA_REGISTRY_URL);
  let reach!: () => void;
  const reached = new Promise<void>((r) => {
    reach = r;
  });
  const waiting: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const id = Number(/\/schemas\/ids\/(\d+)/.exec(req.url ?? '')?.[1]);
    if (held().has(id)) {
      waiting.push(res);
      reach();
      return;
    }
    const fwd = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    req.pipe(fwd);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}${upstream.pathname}`,
    reached,
    answered: () => waiting.filter((res) => res.headersSent).length,
  };
}

/** The tool-loop state schema plus one optional field: a writer schema the processor has not seen. */
function stateVariant(field: string) {
  const schema = toolLoopStateCodec.schema as { fields: object[] };
  const variant = { ...schema, fields: [...schema.fields, { name: field, type: ['null', 'string'], default: null }] };
  return {
    ...toolLoopStateCodec,
    schema: variant as avro.Schema,
    type: avro.Type.forSchema(variant as avro.Schema),
    toAvro: (e: never) => ({ ...(toolLoopStateCodec.toAvro(e) as object), [field]: null }),
  };
}

describe('stopping during a restore', () => {
  // No clock: the registry never answers the restore's lookups, so the restore cannot end; the
  // process must end by itself on SIGTERM (the test's timeout is the only bound).
  it('ends the process on SIGTERM while its restore waits on a registry that never answers', async () => {
    const w = world('restore-stop', {}, 1);
    await lgOk(['topics', 'create', '--config', w.configFile]);
    // Six changelog entries, each written with a schema the processor has not seen: restoring
    // them needs the registry's answer for each.
    const { kafka, catalog } = session(w);
    const entry = { offset: 0, state: { ...initialRunState, lastTs: 1 } };
    const held = new Set<number>();
    const records = [];
    for (let i = 0; i < 6; i++) {
      const scratch = `${w.name}.scratch-${i}`;
      const codec = stateVariant(`note${i}`);
      held.add(await catalog.register(scratch, codec, COMPATIBILITY.BACKWARD));
      records.push({ topic: changelogOf(w), partition: 0, key: `r${i}`, value: catalog.encode(scratch, codec as never, entry as never) });
    }
    expect(held.size).toBe(6);
    await (await kafka.producer()).send(records);

    const registry = await holdingRegistry(() => held);
    const run = lg(['run', '--config', w.configFile], { SCHEMA_REGISTRY_URL: registry.url });
    await registry.reached;
    expect(run.output()).toContain('restoring state from changelog');
    run.child.kill('SIGTERM');
    const code = await run.exited();
    expect(code).toBe(0);
    expect(run.output()).toContain('"msg":"stopped"');
    // It stopped mid-restore: no held lookup was answered and the restore never finished.
    expect(registry.answered()).toBe(0);
    expect(run.output()).not.toMatch(new RegExp(`"topic":"${w.config.topics.toolEvents}".*"msg":"state restored from changelog"`));
  });
});
