import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['./test/setup.ts'],
    // Compiles the Solidity fixtures once for the whole run.
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two files at a time on 2 cores. Three took 0.82–0.84 of the time quiet (many tests wait for
    // blocks, windows and restarts), but beside two CPU burners and a node a fresh-clone run failed
    // ten files: consensus, slashing, staking, provider and CLI tests starved of CPU past their waits.
    maxWorkers: 2,
    pool: 'forks',
    // A worker runs its files one after another in one process, modules loaded once (importing them
    // again for every file took ~2 minutes of the suite). So a test restores what it changes of the
    // process (globals, process.env) and a helper's cache checks that what it cached still exists.
    isolate: false,
  },
});
