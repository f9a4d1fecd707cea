import { Worker } from 'node:worker_threads';
import { decodeVerified, type DecodeJob, type DecodeResult } from './decode-verified.js';
import type { EnvelopeContext } from './ethereum-envelope.js';

// From dist/ the worker sits beside this file; tests run the TypeScript sources and use the build's copy.
const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('../dist/chain/decoding-worker.js', import.meta.url)
  : new URL('./decoding-worker.js', import.meta.url);

/** Most transactions in one message to a worker, so results come back in a steady stream. */
const MAX_BATCH = 256;
/** Decoded transactions handed back per turn of the event loop: each resumes its admission to the mempool. */
const RESUME_PER_TURN = 16;
/**
 * A turn's requests up to this many, with no batch at a worker, are decoded here: verifying a few
 * signatures takes a fraction of a millisecond, the round trip to a worker on a busy machine several
 * (a provider's lone commitment, a client's transfer). A flood comes in larger turns, or while a
 * batch is out, and goes to the workers.
 */
const INLINE_AT_MOST = 4;

interface Pending {
  readonly raw: Uint8Array;
  readonly resolve: (result: DecodeResult) => void;
}

/**
 * Decodes submitted raw transactions and verifies their signatures on worker threads, so a flood of
 * submissions does not stall RPC answers on the main loop. Requests made in the same turn travel to a
 * worker together; a turn of a few, while no worker is busy, is decoded inline. Falls back to
 * working inline when no worker can be used.
 */
export class TxDecoder {
  private readonly workers: Worker[] = [];
  private readonly waiting = new Map<number, Pending[]>();
  private queue: Pending[] = [];
  private nextId = 1;
  private nextWorker = 0;
  private scheduled = false;
  private closed = false;

  constructor(
    size: number,
    private readonly context: EnvelopeContext,
  ) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(WORKER_URL, { workerData: context });
      worker.unref();
      worker.on('message', (reply: { id: number; results: DecodeResult[] }) => {
        const batch = this.waiting.get(reply.id);
        this.waiting.delete(reply.id);
        if (batch) resumeInTurns(batch, reply.results, 0);
      });
      worker.on('error', () => this.failWorker(worker));
      this.workers.push(worker);
    }
  }

  decode(raw: Uint8Array): Promise<DecodeResult> {
    if (this.closed || this.workers.length === 0) return Promise.resolve(decodeVerified(raw, this.context));
    return new Promise((resolve) => {
      this.queue.push({ raw, resolve });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0, MAX_BATCH);
    if (this.queue.length > 0) this.schedule();
    if (batch.length === 0) return;
    if (this.workers.length === 0 || (batch.length <= INLINE_AT_MOST && this.waiting.size === 0)) {
      for (const item of batch) item.resolve(decodeVerified(item.raw, this.context));
      return;
    }
    const id = this.nextId++;
    this.waiting.set(id, batch);
    const job: DecodeJob = { id, raws: batch.map((item) => item.raw) };
    this.workers[this.nextWorker++ % this.workers.length]!.postMessage(job);
  }

  /** A broken worker's batches are decoded inline; the worker is not used again. */
  private failWorker(worker: Worker): void {
    this.workers.splice(this.workers.indexOf(worker), 1);
    for (const [id, batch] of this.waiting) {
      this.waiting.delete(id);
      for (const item of batch) item.resolve(decodeVerified(item.raw, this.context));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const unsent = this.queue.splice(0);
    for (const batch of [unsent, ...this.waiting.values()])
      for (const item of batch) item.resolve(decodeVerified(item.raw, this.context));
    this.waiting.clear();
    await Promise.all(this.workers.splice(0).map((w) => w.terminate()));
  }
}

/**
 * Hands a worker's answers back a few at a time, one group per turn of the event loop: resuming a
 * whole batch at once would run every admission in one stretch and hold up other requests.
 */
function resumeInTurns(batch: readonly Pending[], results: readonly DecodeResult[], from: number): void {
  const end = Math.min(batch.length, from + RESUME_PER_TURN);
  for (let i = from; i < end; i++) batch[i]!.resolve(results[i]!);
  if (end < batch.length) setImmediate(() => resumeInTurns(batch, results, end));
}
