import { Worker } from 'node:worker_threads';
import { verifyEd25519 } from './signatures.js';

// From dist/ the worker sits beside this file; tests run the TypeScript sources and use the build's copy.
const WORKER_URL = import.meta.url.endsWith('.ts') ? new URL('../../dist/kernel/chain/verify-worker.js', import.meta.url) : new URL('./verify-worker.js', import.meta.url);

interface Pending {
  signature: Uint8Array;
  message: Uint8Array;
  publicKey: Uint8Array;
  resolve: (ok: boolean) => void;
}

/**
 * Verifies Ed25519 signatures on worker threads, so a flood of submitted transactions does not stall
 * RPC answers on the main loop. Requests made in the same tick travel to a worker as one batch.
 * Falls back to verifying inline when the worker can't be used.
 */
export class SignaturePool {
  private readonly workers: Worker[] = [];
  private readonly waiting = new Map<number, Pending[]>();
  private queue: Pending[] = [];
  private nextId = 1;
  private nextWorker = 0;
  private scheduled = false;
  private closed = false;

  constructor(size: number) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(WORKER_URL);
      worker.unref();
      worker.on('message', (reply: { id: number; results: boolean[] }) => {
        const batch = this.waiting.get(reply.id);
        this.waiting.delete(reply.id);
        batch?.forEach((item, index) => item.resolve(reply.results[index] === true));
      });
      worker.on('error', () => this.failWorker(worker));
      this.workers.push(worker);
    }
  }

  verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): Promise<boolean> {
    if (this.closed || this.workers.length === 0) return Promise.resolve(verifyEd25519(signature, message, publicKey));
    return new Promise((resolve) => {
      this.queue.push({ signature, message, publicKey, resolve });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    if (this.workers.length === 0) {
      for (const item of batch) item.resolve(verifyEd25519(item.signature, item.message, item.publicKey));
      return;
    }
    const id = this.nextId++;
    this.waiting.set(id, batch);
    const worker = this.workers[this.nextWorker++ % this.workers.length]!;
    worker.postMessage({ id, items: batch.map(({ signature, message, publicKey }) => ({ signature, message, publicKey })) });
  }

  /** A broken worker's batches are verified inline; the worker is not used again. */
  private failWorker(worker: Worker): void {
    this.workers.splice(this.workers.indexOf(worker), 1);
    for (const [id, batch] of this.waiting) {
      this.waiting.delete(id);
      for (const item of batch) item.resolve(verifyEd25519(item.signature, item.message, item.publicKey));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.flush();
    for (const [, batch] of this.waiting) for (const item of batch) item.resolve(verifyEd25519(item.signature, item.message, item.publicKey));
    this.waiting.clear();
    await Promise.all(this.workers.splice(0).map((w) => w.terminate()));
  }
}
