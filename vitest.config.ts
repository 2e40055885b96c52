import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // CLI tests run the bundled `retrace`; build it once before any test file.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Real git in temp folders: two cores, so keep the pool small and predictable.
    pool: 'forks',
    maxWorkers: 2,
  },
});
