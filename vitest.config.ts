import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['apps/*/src/**/*.test.ts', 'libs/*/src/**/*.test.ts', 'charts/*/tests/**/*.test.ts'],
    // Each test file runs in its own process: chDB allows one data directory per process.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './tools/vitest-summary-reporter.ts'],
  },
});
