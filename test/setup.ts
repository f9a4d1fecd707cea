// Runs before every test file: the libp2p polyfill, removal of the temp dirs the file made, and on a
// failed test the warnings and errors its in-process nodes logged (why a node misbehaved is there).
import '../p2p/promise-with-resolvers.js';
import { afterAll, beforeEach } from 'vitest';
import { removeTempDirs } from './helpers/temp-dirs.js';
import { capturedLogs } from './helpers/log-capture.js';

const WARN = 40;
const LINES_PER_LOG = 40;

beforeEach(({ onTestFailed }) => {
  const from = capturedLogs.map((log) => log.lines.length);
  onTestFailed(() => {
    capturedLogs.forEach((log, i) => {
      const worth = log.lines.slice(from[i] ?? 0).filter((line) => Number(line.level) >= WARN);
      if (worth.length === 0) return;
      process.stderr.write(
        `--- node log ${i + 1}: its last ${Math.min(worth.length, LINES_PER_LOG)} warnings and errors during the failed test\n${worth
          .slice(-LINES_PER_LOG)
          .map((line) => JSON.stringify(line))
          .join('\n')}\n`,
      );
    });
  });
});

// Removing a file's temp dirs can take long where they hold a clone with its node_modules on disk.
const REMOVAL_TIMEOUT_MS = 120_000;

afterAll(() => {
  removeTempDirs();
  // A worker may run several files (vitest's isolate: false): each file's failures print its own nodes' logs.
  capturedLogs.length = 0;
}, REMOVAL_TIMEOUT_MS);
