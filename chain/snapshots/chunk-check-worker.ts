// Worker thread: checks a snapshot's chunks (decoding and hashing every entry) while the main thread
// takes the ones checked before and the state is written.
import { parentPort } from 'node:worker_threads';
import { checkChunk, type ChunkCheckJob } from './chunk-check.js';

parentPort!.on('message', ({ id, job }: { id: number; job: ChunkCheckJob }) => {
  const result = checkChunk(job);
  parentPort!.postMessage(
    { id, result },
    'hashes' in result ? [result.hashes.buckets.buffer as ArrayBuffer, result.hashes.leaves.buffer as ArrayBuffer] : [],
  );
});
