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
/**
 * Batches out at a worker at once: the rest wait here, where an urgent decode can pass them. Posted
 * all at once, a gossip flood's thousands of transactions sat in the worker's own queue, and a
 * proposal's fetched transactions decoded behind them for seconds (BENCHMARKS.md). Two keep the
 * worker busy while the next batch travels.
 */
const BATCHES_AT_A_WORKER = 2;

interface Pending {
  readonly raw: Uint8Array;
  readonly resolve: (result: DecodeResult) => void;
}

/**
 * Decodes submitted raw transactions and verifies their signatures on worker threads, so a flood of
 * submissions does not stall RPC answers on the main loop. Requests made in the same turn travel to a
 * worker together; a turn of a few, while no worker is busy, is decoded inline. Falls back to
 * working inline when no worker can be used.
 *
 * The workers start with the first batch too big to decode inline: loading the decoder's modules
 * on a thread costs about 0.4 s of CPU, which a node that never sees a flood (most devnet nodes, a
 * node restarted in a test) would pay at every start for nothing.
 */
export class TxDecoder {
  private readonly workers: Worker[] = [];
  private started = false;
  private readonly waiting = new Map<number, { readonly batch: Pending[]; readonly worker: Worker }>();
  private queue: Pending[] = [];
  private urgent: Pending[] = [];
  private nextId = 1;
  private nextWorker = 0;
  private scheduled = false;
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly context: EnvelopeContext,
  ) {}

  /** Worker threads running: none until the first batch that needs them, fewer if some broke. */
  get workersRunning(): number {
    return this.workers.length;
  }

  /**
   * `urgent`: ahead of everything not yet at a worker (what a proposal being checked waits for, as
   * against a gossip flood's transactions, which only wait to be admitted).
   */
  decode(raw: Uint8Array, urgent = false): Promise<DecodeResult> {
    if (this.closed || (this.started && this.workers.length === 0))
      return Promise.resolve(decodeVerified(raw, this.context));
    return new Promise((resolve) => {
      (urgent ? this.urgent : this.queue).push({ raw, resolve });
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
    const pending = this.pending;
    if (pending === 0) return;
    if (pending > INLINE_AT_MOST) this.startWorkers();
    if (this.workers.length === 0 || (pending <= INLINE_AT_MOST && this.waiting.size === 0)) {
      for (const item of this.take()) item.resolve(decodeVerified(item.raw, this.context));
      if (this.pending > 0) this.schedule();
      return;
    }
    const worker = this.freeWorker();
    // None free: the next answer from a worker flushes again.
    if (!worker) return;
    const batch = this.take();
    const id = this.nextId++;
    this.waiting.set(id, { batch, worker });
    const job: DecodeJob = { id, raws: batch.map((item) => item.raw) };
    worker.postMessage(job);
    if (this.pending > 0) this.schedule();
  }

  /** Transactions not yet at a worker. */
  private get pending(): number {
    return this.urgent.length + this.queue.length;
  }

  /** The next batch: urgent decodes first, and never mixed with the others (they would hold them up). */
  private take(): Pending[] {
    return this.urgent.length > 0 ? this.urgent.splice(0, MAX_BATCH) : this.queue.splice(0, MAX_BATCH);
  }

  /** A worker with room for another batch, taking them in turn. */
  private freeWorker(): Worker | undefined {
    for (let i = 0; i < this.workers.length; i++) {
      const worker = this.workers[this.nextWorker++ % this.workers.length]!;
      let out = 0;
      for (const sent of this.waiting.values()) if (sent.worker === worker) out++;
      if (out < BATCHES_AT_A_WORKER) return worker;
    }
    return undefined;
  }

  private startWorkers(): void {
    if (this.started) return;
    this.started = true;
    for (let i = 0; i < this.size; i++) {
      const worker = new Worker(WORKER_URL, { workerData: this.context });
      worker.unref();
      worker.on('message', (reply: { id: number; results: DecodeResult[] }) => {
        const sent = this.waiting.get(reply.id);
        this.waiting.delete(reply.id);
        if (this.pending > 0) this.schedule();
        if (sent) resumeInTurns(sent.batch, reply.results, 0);
      });
      worker.on('error', () => this.failWorker(worker));
      this.workers.push(worker);
    }
  }

  /** A broken worker's batches are decoded inline; the worker is not used again. */
  private failWorker(worker: Worker): void {
    this.workers.splice(this.workers.indexOf(worker), 1);
    for (const [id, sent] of this.waiting) {
      if (sent.worker !== worker) continue;
      this.waiting.delete(id);
      for (const item of sent.batch) item.resolve(decodeVerified(item.raw, this.context));
    }
    if (this.pending > 0) this.schedule();
  }

  async close(): Promise<void> {
    this.closed = true;
    const unsent = [...this.urgent.splice(0), ...this.queue.splice(0)];
    for (const batch of [unsent, ...[...this.waiting.values()].map((sent) => sent.batch)])
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
