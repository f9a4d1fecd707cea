import { Worker } from 'node:worker_threads';
import { checkChunk, type ChunkCheck, type ChunkCheckJob } from './chunk-check.js';

// From dist/ the worker sits beside this file; tests run the TypeScript sources and use the build's copy.
const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('../../dist/chain/snapshots/chunk-check-worker.js', import.meta.url)
  : new URL('./chunk-check-worker.js', import.meta.url);

/**
 * Checks a snapshot's chunks on a worker thread: hashing every entry is most of a restore's work, and
 * on the main thread it would hold the event loop and leave the machine's other core to the writes
 * alone. Falls back to checking inline when the worker cannot run (or stops).
 */
export class ChunkCheckThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { readonly job: ChunkCheckJob; readonly done: (r: ChunkCheck) => void }>();
  private nextId = 1;

  constructor() {
    try {
      this.worker = new Worker(WORKER_URL);
      this.worker.on('message', ({ id, result }: { id: number; result: ChunkCheck }) => {
        this.pending.get(id)?.done(result);
        this.pending.delete(id);
      });
      this.worker.on('error', () => this.inline());
      this.worker.on('exit', () => this.inline());
      this.worker.unref();
    } catch {
      this.worker = undefined;
    }
  }

  check(job: ChunkCheckJob): Promise<ChunkCheck> {
    if (!this.worker) return Promise.resolve(checkChunk(job));
    const id = this.nextId++;
    return new Promise((done) => {
      this.pending.set(id, { job, done });
      this.worker!.postMessage({ id, job });
    });
  }

  /** The worker is gone: what it was given is checked here. */
  private inline(): void {
    this.worker = undefined;
    for (const { job, done } of this.pending.values()) done(checkChunk(job));
    this.pending.clear();
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }
}
