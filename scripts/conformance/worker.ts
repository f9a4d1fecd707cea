import { parentPort } from 'node:worker_threads';
import { NodePaths } from './node-path.js';
import { runStateCase, STATE_HARDFORK, type StateCase } from './state-tests.js';

/** A conformance worker: runs the state cases it is sent, one at a time, and answers each outcome. */
const paths = new NodePaths(STATE_HARDFORK);
parentPort!.on('message', async (testCase: StateCase) => {
  parentPort!.postMessage(await runStateCase(testCase, paths));
});
