import { configDefaults, defineConfig } from 'vitest/config';

// Pure specs beside the code (no services), and integration tests under test/ that get a real
// Kafka broker and schema registry from the global setup, in two projects: most files two at a
// time, then, one at a time, the files that must have the machine (or the broker) to themselves.
// All refuse to start on a build older than the sources (test/helpers/freshBuild.ts).

/**
 * One at a time, after the others: the files that stop or restart the shared broker (faults,
 * outage), that time what a secured stack and its gateways answer (secure), that drive real
 * gateways whose turns time out on a loaded machine (openclaw), or that kill a processor
 * mid-stream (guarantees). `loopguard start` and `npm install -g .` run with the others: they
 * start stacks and installs of their own and give them minutes.
 */
const SERIAL = ['test/faults.test.ts', 'test/outage.test.ts', 'test/outageNode24.test.ts', 'test/secure.test.ts', 'test/openclaw.test.ts', 'test/guarantees.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 300_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            'processors/**/*.spec.ts',
            'topology/**/*.spec.ts',
            'schemas/**/*.spec.ts',
            'cli/**/*.spec.ts',
            'sdk/**/*.spec.ts',
            'integrations/**/*.spec.ts',
            'bench/**/*.spec.ts',
          ],
          globalSetup: ['test/helpers/freshBuild.ts'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          // The defaults (node_modules, the hosts' installs under test/hosts/ included) and the serial files.
          exclude: [...configDefaults.exclude, ...SERIAL],
          globalSetup: ['test/helpers/freshBuild.ts', 'test/helpers/globalSetup.ts'],
          testTimeout: 180_000,
          // Two files at a time: most of an integration test's time is waiting on a broker,
          // a group or a timeout. Every file owns its topics, groups and subjects.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration-serial',
          include: SERIAL,
          globalSetup: ['test/helpers/freshBuild.ts', 'test/helpers/globalSetup.ts'],
          testTimeout: 180_000,
          fileParallelism: false,
          // After the parallel group, one file at a time.
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
