// Worker thread: verifies batches of Ed25519 signatures off the main event loop.
import { parentPort } from 'node:worker_threads';
import { verifyEd25519 } from './signatures.js';

interface Job {
  id: number;
  items: { signature: Uint8Array; message: Uint8Array; publicKey: Uint8Array }[];
}

parentPort!.on('message', (job: Job) => {
  const results = job.items.map((item) => verifyEd25519(item.signature, item.message, item.publicKey));
  parentPort!.postMessage({ id: job.id, results });
});
