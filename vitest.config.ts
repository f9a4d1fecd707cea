import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['./test/setup.ts'],
    // Compiles the Solidity fixtures once for the whole run.
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Process-spawning and multi-node tests share 2 cores; a few files at a time keeps them honest.
    maxWorkers: 2,
    pool: 'forks',
  },
});
