import { defineConfig } from 'vitest/config';

// Two tiers, told apart by the file name. `*.e2e.test.ts` (`npm run test:e2e`): a test that needs a
// program beyond Node and the npm dependencies (npm itself, a second build, a browser, clang,
// systemd-analyze, the e2e hosts' namespaces), or runs a network of node processes or a node process
// in a crash loop.
// Every other test (`npm test`) runs in-process nodes, single node processes and the CLIs.
const E2E = 'test/**/*.e2e.test.ts';

export default defineConfig({
  test: {
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
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [E2E] } },
      { extends: true, test: { name: 'e2e', include: [E2E] } },
    ],
  },
});
