import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../../kernel/storage/open.js';
import { tempDir } from '../../helpers/test-node.js';

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
});
