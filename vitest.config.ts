import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['processors/**/*.spec.ts', 'topology/**/*.spec.ts', 'schemas/**/*.spec.ts', 'cli/**/*.spec.ts', 'sdk/**/*.spec.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 240_000,
    pool: 'forks',
  },
});
