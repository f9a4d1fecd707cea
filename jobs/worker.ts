import { parentPort } from 'node:worker_threads';
import { lowerThreadPriority } from '../kernel/thread-priority.js';
import { executeJob } from './execute.js';
import type { JobSpec } from './spec.js';

// Jobs yield the cores to the main thread, which answers RPC and produces blocks.
lowerThreadPriority();

parentPort!.on('message', (message: { id: number; spec: JobSpec }) => {
  void executeJob(message.spec).then(
    (outcome) => parentPort!.postMessage({ id: message.id, outcome }),
    (error: unknown) =>
      parentPort!.postMessage({
        id: message.id,
        error: {
          name: (error as Error).name,
          message: (error as Error).message,
          feature: (error as { feature?: string }).feature,
        },
      }),
  );
});
