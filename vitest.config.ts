import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['./test/setup.ts'],
    // Compiles the Solidity fixtures once for the whole run.
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Three files at a time on 2 cores: 0.82–0.84 of the time two took (many tests wait for blocks,
    // windows and restarts rather than compute). Tests that start dozens of processes have bounds
    // sized for that (a bound is a guard against a hang, never a speed goal).
    maxWorkers: 3,
    pool: 'forks',
    // A worker runs its files one after another in one process, modules loaded once (importing them
    // again for every file took ~2 minutes of the suite). So a test restores what it changes of the
    // process (globals, process.env) and a helper's cache checks that what it cached still exists.
    isolate: false,
  },
});
