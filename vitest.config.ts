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
    // A worker runs its files one after another in one process, modules loaded once (importing them
    // again for every file took ~2 minutes of the suite). So a test restores what it changes of the
    // process (globals, process.env) and a helper's cache checks that what it cached still exists.
    isolate: false,
  },
});
