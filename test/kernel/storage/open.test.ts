import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../../kernel/storage/open.js';
import { tempDir, waitFor } from '../../helpers/test-node.js';

/** Bytes the files under `dir` take on disk (allocated blocks: a preallocated log counts whole). */
function allocated(dir: string): number {
  return readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).blocks * 512, 0);
}

describe('opening RocksDB', () => {
  it('takes tens of megabytes for a new data dir, not the 75 MB of log RocksDB preallocates at its default memtable size', async () => {
    const dataDir = tempDir();
    const store = await openStore('rocksdb', dataDir);
    try {
      const batch = store.batch();
      batch.put(store.claim('test.open', 'test'), new Uint8Array([1]), new Uint8Array([2]));
      await batch.write();
      // The log is preallocated at 1.1 times a memtable (16 MB here): ~18 MB, where 64 MB memtables took ~70.
      expect(allocated(join(dataDir, 'db'))).toBeLessThan(32 * 1024 * 1024);
    } finally {
      await store.close();
    }
  });

  it('closes the database when reads are still in flight, so this process can open the data dir again', async () => {
    const dataDir = tempDir();
    const store = await openStore('rocksdb', dataDir);
    const keys = Array.from({ length: 2000 }, (_, i) => new Uint8Array([i >> 8, i & 255]));
    await store.backend.write(keys.map((key) => ({ type: 'put', key, value: new Uint8Array(100) })));
    // A node stopping while RPC reads run: one read or another is in flight when the database closes.
    let answered = 0;
    const reader = (async () => {
      for (;;) {
        await Promise.all([store.backend.getMany(keys), store.backend.get(keys[0]!), drain(store.backend.iterate({}))]);
        answered++;
      }
    })().catch((error: Error) => error.message); // handled now: it ends while the store closes
    await waitFor(
      async () => answered,
      (count) => count >= 2,
      10_000,
      'reads to run',
    );
    await store.close();
    expect(await reader).toMatch(/closed|not open/);
    const reopened = await openStore('rocksdb', dataDir);
    try {
      expect(Uint8Array.from((await reopened.backend.get(keys[1999]!)) ?? [])).toEqual(new Uint8Array(100));
    } finally {
      await reopened.close();
    }
  });
});

async function drain(entries: AsyncIterable<unknown>): Promise<number> {
  let count = 0;
  for await (const _ of entries) count++;
  return count;
}
