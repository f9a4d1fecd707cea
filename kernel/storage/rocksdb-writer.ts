import { Worker } from 'node:worker_threads';
import type { RawOperation } from './types.js';

// From dist/ the worker sits beside this file; tests run the TypeScript sources and use the build's copy.
const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('../../dist/kernel/storage/rocksdb-write-worker.js', import.meta.url)
  : new URL('./rocksdb-write-worker.js', import.meta.url);
const DELETE = 0xffffffff;

/** Packs operations into one transferable buffer: [u32 key length][key][u32 value length | 0xffffffff for delete][value]. */
function pack(operations: readonly RawOperation[]): ArrayBuffer {
  let size = 0;
  for (const op of operations) size += 8 + op.key.length + (op.type === 'put' ? op.value.length : 0);
  const buffer = new ArrayBuffer(size);
  const bytes = new Uint8Array(buffer);
  const view = new DataView(buffer);
  let offset = 0;
  for (const op of operations) {
    view.setUint32(offset, op.key.length);
    bytes.set(op.key, offset + 4);
    offset += 4 + op.key.length;
    if (op.type === 'put') {
      view.setUint32(offset, op.value.length);
      bytes.set(op.value, offset + 4);
      offset += 4 + op.value.length;
    } else {
      view.setUint32(offset, DELETE);
      offset += 4;
    }
  }
  return buffer;
}

/**
 * Writes batches to RocksDB on a worker thread: the @nxtedition binding writes synchronously, and a
 * batch of thousands of writes would otherwise hold the event loop (and every RPC answer) for
 * tens of milliseconds. Batches are applied one at a time, in the order they were given.
 */
export class RocksWriter {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private failure: Error | undefined;
  private last: Promise<unknown> = Promise.resolve(); // The last write given: applied in order, it settles last.

  constructor(handle: bigint) {
    this.worker = new Worker(WORKER_URL, { workerData: { handle } });
    this.worker.on('message', (reply: { id: number; error?: string }) => {
      const waiter = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (reply.error) waiter?.reject(new Error(`RocksDB write failed: ${reply.error}`));
      else waiter?.resolve();
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => {
      if (this.pending.size > 0) this.fail(new Error(`RocksDB write worker exited (${code})`));
    });
  }

  write(operations: readonly RawOperation[], sync: boolean): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    const buffer = pack(operations);
    const written = new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, buffer, sync }, [buffer]);
    });
    this.last = written.catch(() => undefined);
    return written;
  }

  get idle(): boolean {
    return this.pending.size === 0;
  }

  private fail(error: Error): void {
    this.failure = error;
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }

  /** Waits for the writes in flight, then stops the worker (before the database closes). */
  async close(): Promise<void> {
    await this.last;
    await this.worker.terminate();
  }
}
