import { Worker } from 'node:worker_threads';
import { NodePaths } from './node-path.js';
import { runStateCase, STATE_HARDFORK, type CaseOutcome, type StateCase } from './state-tests.js';

// From dist/ the worker sits beside this file; tests run the TypeScript sources and use the build's copy.
const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('../../dist/scripts/conformance/worker.js', import.meta.url)
  : new URL('./worker.js', import.meta.url);

/**
 * Runs state cases on `threads` worker threads (each with its own node path), or here when
 * `threads` is 1; outcomes come back in the cases' order. A worker that fails ends the run.
 */
export async function runStateCases(
  cases: readonly StateCase[],
  threads: number,
  progress?: (done: number) => void,
): Promise<CaseOutcome[]> {
  const outcomes: CaseOutcome[] = new Array(cases.length);
  let done = 0;
  const finished = () => {
    done++;
    if (done % 500 === 0) progress?.(done);
  };
  if (threads <= 1) {
    const paths = new NodePaths(STATE_HARDFORK);
    for (let i = 0; i < cases.length; i++) {
      outcomes[i] = await runStateCase(cases[i]!, paths);
      finished();
    }
    return outcomes;
  }
  let next = 0;
  const workers = Array.from({ length: Math.min(threads, cases.length) }, () => new Worker(WORKER_URL));
  try {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            let current = -1;
            const send = () => {
              if (next >= cases.length) return resolve();
              current = next++;
              worker.postMessage(cases[current]);
            };
            worker.on('message', (outcome: CaseOutcome) => {
              outcomes[current] = outcome;
              finished();
              send();
            });
            worker.on('error', reject);
            worker.on('exit', (code) =>
              reject(new Error(`a conformance worker exited (code ${code}) during case ${cases[current]?.id}`)),
            );
            send();
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
  return outcomes;
}
