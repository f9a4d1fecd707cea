// Worker thread: decodes raw transactions and verifies their signatures off the main event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { decodeVerified, type DecodeJob } from './decode-verified.js';
import type { EnvelopeContext } from './ethereum-envelope.js';
import { lowerThreadPriority } from '../kernel/thread-priority.js';

lowerThreadPriority();
const context = workerData as EnvelopeContext;

parentPort!.on('message', (job: DecodeJob) => {
  parentPort!.postMessage({ id: job.id, results: job.raws.map((raw) => decodeVerified(raw, context)) });
});
