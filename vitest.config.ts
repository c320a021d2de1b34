import { defineConfig } from 'vitest/config';

// Two projects: pure specs beside the code (no services), and integration tests under test/
// that get a real Kafka broker and schema registry from the global setup. Both refuse to start
// on a build older than the sources (test/helpers/freshBuild.ts).
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
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          globalSetup: ['test/helpers/freshBuild.ts', 'test/helpers/globalSetup.ts'],
          testTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
