// Schema registration from several processes at once: `run` and `produce` each register the
// same fresh subjects, and none of them may fail because another got there first. A proxy in
// front of the registry makes the race certain and counts what it saw.
import { createServer, request, type Server } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { subjectOf } from '../schemas/registry.js';
import { infraEnv, lg, lgOk, waitFor, world, writeEvents } from './helpers/harness.js';
import { mixedTraffic } from './helpers/traffic.js';

async function compatibilityOf(subject: string): Promise<string> {
  const r = await fetch(`${infraEnv().SCHEMA_REGISTRY_URL}/config/${subject}`);
  return ((await r.json()) as { compatibilityLevel: string }).compatibilityLevel;
}

/**
 * A registry in front of the real one that holds every registration of `subject` until `n` of
 * them have arrived, then lets them all through at once: the race happens by construction, and
 * `seen` says how many were in flight together and how many conflicts (409) the registry answered.
 */
async function racingRegistry(subject: string, n: number) {
  const upstream = new URL(infraEnv().SCHEMA_REGISTRY_URL);
  const seen = { inFlightAtRelease: 0, registrations: 0, conflicts: 0 };
  let held: Array<() => void> | null = [];
  const server: Server = createServer((req, res) => {
    const forward = () => {
      const fwd = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (up) => {
        if (up.statusCode === 409) seen.conflicts++;
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      req.pipe(fwd);
    };
    const registering = req.method === 'POST' && (req.url ?? '').includes(`/subjects/${encodeURIComponent(subject)}/versions`);
    if (registering) seen.registrations++;
    if (!registering || held === null) return forward();
    held.push(forward);
    if (held.length < n) return;
    seen.inFlightAtRelease = held.length;
    const all = held;
    held = null;
    for (const go of all) go();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}${upstream.pathname}`, seen };
}

// Each round forces the race: the four produce runs' registrations of the tool-event subject reach
// the registry together.
describe.each([1, 2, 3])('concurrent registration, round %i', (round) => {
  it('lets four produce runs and a run started at the same moment on fresh subjects all succeed, the four registering at once', async () => {
    const w = world(`register-race${round}`);
    await lgOk(['topics', 'create', '--config', w.configFile]);
    const { topics } = w.config;
    const registry = await racingRegistry(subjectOf(topics.toolEvents), 4);
    const env = { SCHEMA_REGISTRY_URL: registry.url };
    const files = [0, 1, 2, 3].map((i) => writeEvents(`${w.name}-${i}`, mixedTraffic(2, 3 + i)));
    const run = lg(['run', '--config', w.configFile], env);
    const produces = files.map((f) => lg(['produce', '--config', w.configFile, f], env));

    const codes = await Promise.all(produces.map((p) => p.exited()));
    expect(codes, produces.map((p) => p.output()).join('\n')).toEqual([0, 0, 0, 0]);
    await waitFor('the processor to start', () => run.output().includes('processor started') || run.child.exitCode !== null);
    expect(run.child.exitCode, run.output()).toBeNull();
    // The race did happen: four registrations of one fresh subject were in flight together.
    expect(registry.seen.inFlightAtRelease).toBe(4);
    expect(registry.seen.registrations).toBeGreaterThanOrEqual(4);
    process.stderr.write(`registration round ${round}: ${JSON.stringify(registry.seen)}\n`);

    expect(await compatibilityOf(subjectOf(topics.toolEvents))).toBe('FULL_TRANSITIVE');
    expect(await compatibilityOf(subjectOf(topics.channelEvents))).toBe('FULL_TRANSITIVE');
    expect(await compatibilityOf(subjectOf(topics.verdicts))).toBe('FULL_TRANSITIVE');
    expect(await compatibilityOf(subjectOf(`${topics.changelogPrefix}tool-loop-runs-changelog`))).toBe('BACKWARD');
  });
});
