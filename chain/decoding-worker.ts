// Worker thread: decodes raw transactions and verifies their signatures off the main event loop.
import { parentPort } from 'node:worker_threads';
import { decodeVerified, type DecodeJob } from './decode-verified.js';
import { lowerThreadPriority } from '../kernel/thread-priority.js';

lowerThreadPriority();

parentPort!.on('message', (job: DecodeJob) => {
  parentPort!.postMessage({ id: job.id, results: job.raws.map(decodeVerified) });
});
