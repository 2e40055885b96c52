import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // CLI tests run the bundled `retrace`; build it once before any test file.
    globalSetup: ['test/global-setup.ts'],
    // Every hook call runs in-process: a test run must not leave a resident hook server per temp data home.
    // The hook server's own tests turn it back on.
    env: { RETRACE_HOOK_SERVER: '0' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Real git in temp folders: two cores, so keep the pool small and predictable.
    pool: 'forks',
    maxWorkers: 2,
  },
});
