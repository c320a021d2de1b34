// Schema registration from several processes at once: `run` and `produce` each register the
// same fresh subjects, and none of them may fail because another got there first.
import { describe, expect, it } from 'vitest';
import { subjectOf } from '../schemas/registry.js';
import { infraEnv, lg, lgOk, waitFor, world, writeEvents } from './helpers/harness.js';
import { mixedTraffic } from './helpers/traffic.js';

async function compatibilityOf(subject: string): Promise<string> {
  const r = await fetch(`${infraEnv().SCHEMA_REGISTRY_URL}/config/${subject}`);
  return ((await r.json()) as { compatibilityLevel: string }).compatibilityLevel;
}

// The race is lost only sometimes: three rounds on fresh subjects each.
describe.each([1, 2, 3])('concurrent registration, round %i', (round) => {
  it('lets four produce runs and a run started at the same moment on fresh subjects all succeed', async () => {
    const w = world(`register-race${round}`);
    await lgOk(['topics', 'create', '--config', w.configFile]);
    const files = [0, 1, 2, 3].map((i) => writeEvents(`${w.name}-${i}`, mixedTraffic(2, 3 + i)));
    const run = lg(['run', '--config', w.configFile]);
    const produces = files.map((f) => lg(['produce', '--config', w.configFile, f]));

    const codes = await Promise.all(produces.map((p) => p.exited()));
    expect(codes, produces.map((p) => p.output()).join('\n')).toEqual([0, 0, 0, 0]);
    await waitFor('the processor to start', () => run.output().includes('processor started') || run.child.exitCode !== null);
    expect(run.child.exitCode, run.output()).toBeNull();

    const { topics } = w.config;
    expect(await compatibilityOf(subjectOf(topics.toolEvents))).toBe('FULL_TRANSITIVE');
    expect(await compatibilityOf(subjectOf(topics.channelEvents))).toBe('FULL_TRANSITIVE');
    expect(await compatibilityOf(subjectOf(topics.verdicts))).toBe('FULL_TRANSITIVE');
    expect(await compatibilityOf(subjectOf(`${topics.changelogPrefix}tool-loop-runs-changelog`))).toBe('BACKWARD');
  });
});
