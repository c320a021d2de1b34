// Restoring state from changelogs: it ends by offsets, whatever the changelog's tail holds,
// and a stop during a restore that cannot progress still ends the process promptly.
import { createServer, request, type Server } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import avro from 'avsc';
import kafkajs from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { initialRunState } from '../processors/toolLoop/state.js';
import { toolLoopStateCodec } from '../schemas/codecs.js';
import { COMPATIBILITY } from '../schemas/registry.js';
import { infraEnv, lg, lgOk, session, waitFor, world, type Run, type World } from './helpers/harness.js';

const changelogOf = (w: World) => `${w.config.topics.changelogPrefix}tool-loop-runs-changelog`;

/** Resolves to the child's exit code, or 'still running' once `ms` have passed. */
const exitWithin = (run: Run, ms: number) => Promise.race([run.exited(), delay(ms).then(() => 'still running' as const)]);

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
    const { kafka } = session(w);
    expect((await kafka.watermarks(changelogOf(w))).get(0)).toEqual({ low: 0, high: 2 });

    const run = lg(['run', '--config', w.configFile]);
    await waitFor('/readyz to answer 200', async () => (await readyz(run)) === 200);
    expect(run.output()).toMatch(new RegExp(`"topic":"${w.config.topics.toolEvents}","partitions":\\[0,1,2\\],"records":0,"ms":\\d+,"msg":"state restored from changelog"`));
  });
});

/**
 * A registry in front of the real one that answers each lookup of a schema in `slow` only
 * after SLOW_MS, under the client's 5 s timeout: a restore that needs n of them takes n × SLOW_MS.
 */
const SLOW_MS = 3_000;
async function slowRegistry(slow: () => ReadonlySet<number>): Promise<{ url: string; reached: Promise<void> }> {
  const upstream = new URL(infraEnv().SCHEMA_REGISTRY_URL);
  let reach!: () => void;
  const reached = new Promise<void>((r) => {
    reach = r;
  });
  const server: Server = createServer((req, res) => {
    const id = Number(/\/schemas\/ids\/(\d+)/.exec(req.url ?? '')?.[1]);
    const forward = () => {
      const fwd = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      req.pipe(fwd);
    };
    if (slow().has(id)) {
      reach();
      setTimeout(forward, SLOW_MS);
    } else forward();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}${upstream.pathname}`, reached };
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
  it('ends the process within 10 s of SIGTERM though the restore alone would take 18 s', async () => {
    const w = world('restore-stop', {}, 1);
    await lgOk(['topics', 'create', '--config', w.configFile]);
    // Six changelog entries, each written with a schema the processor has not seen: restoring
    // them asks the (slow) registry six times, one after the other.
    const { kafka, catalog } = session(w);
    const entry = { offset: 0, state: { ...initialRunState, lastTs: 1 } };
    const slow = new Set<number>();
    const records = [];
    for (let i = 0; i < 6; i++) {
      const scratch = `${w.name}.scratch-${i}`;
      const codec = stateVariant(`note${i}`);
      slow.add(await catalog.register(scratch, codec, COMPATIBILITY.BACKWARD));
      records.push({ topic: changelogOf(w), partition: 0, key: `r${i}`, value: catalog.encode(scratch, codec as never, entry as never) });
    }
    expect(slow.size).toBe(6);
    await (await kafka.producer()).send(records);

    const registry = await slowRegistry(() => slow);
    const run = lg(['run', '--config', w.configFile], { SCHEMA_REGISTRY_URL: registry.url });
    await registry.reached;
    expect(run.output()).toContain('restoring state from changelog');
    run.child.kill('SIGTERM');
    const code = await exitWithin(run, 10_000);
    process.stderr.write(run.output());
    expect(code).toBe(0);
    expect(run.output()).toContain('"msg":"stopped"');
    expect(run.output()).not.toMatch(new RegExp(`"topic":"${w.config.topics.toolEvents}".*"msg":"state restored from changelog"`));
  });
});
