// Worker thread: applies packed write batches to the node's RocksDB through the handle the main
// thread shares, so large batches never stall the main event loop.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

interface Binding {
  db_init(handle: bigint): unknown;
  batch_init(): unknown;
  batch_put(batch: unknown, key: Buffer, value: Buffer, options: object): void;
  batch_del(batch: unknown, key: Buffer, options: object): void;
  batch_write(db: unknown, batch: unknown, options: { sync: boolean }): void;
  batch_clear(batch: unknown): void;
}

const require = createRequire(import.meta.url);
const binding = require('@nxtedition/rocksdb/binding.js') as Binding;
const db = binding.db_init((workerData as { handle: bigint }).handle);
const NONE = {};
const DELETE = 0xffffffff;

parentPort!.on('message', (job: { id: number; buffer: ArrayBuffer; sync: boolean }) => {
  try {
    const batch = binding.batch_init();
    const view = new DataView(job.buffer);
    let offset = 0;
    while (offset < job.buffer.byteLength) {
      const keyLength = view.getUint32(offset);
      const key = Buffer.from(job.buffer, offset + 4, keyLength);
      offset += 4 + keyLength;
      const valueLength = view.getUint32(offset);
      offset += 4;
      if (valueLength === DELETE) {
        binding.batch_del(batch, key, NONE);
      } else {
        binding.batch_put(batch, key, Buffer.from(job.buffer, offset, valueLength), NONE);
        offset += valueLength;
      }
    }
    binding.batch_write(db, batch, { sync: job.sync });
    binding.batch_clear(batch);
    parentPort!.postMessage({ id: job.id });
  } catch (error) {
    parentPort!.postMessage({ id: job.id, error: (error as Error).message });
  }
});
