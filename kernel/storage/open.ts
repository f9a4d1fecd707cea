import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MemoryLevel } from 'memory-level';
import { LevelBackend } from './level-backend.js';
import { RocksWriter } from './rocksdb-writer.js';
import { Store } from './store.js';

export type StorageKind = 'rocksdb' | 'memory';

const require = createRequire(import.meta.url);

/** Opens the database of a data dir: RocksDB under `<dataDir>/db` (memtables of 16 MB: RocksDB preallocates its log at 1.1 times one, 70 MB a data dir at its 64 MB default), or a throw-away memory store. */
export async function openStore(kind: StorageKind, dataDir: string): Promise<Store> {
  if (kind === 'memory') {
    return new Store(
      await LevelBackend.open('memory', new MemoryLevel({ keyEncoding: 'buffer', valueEncoding: 'buffer' }) as never),
    );
  }
  const location = join(resolve(dataDir), 'db');
  mkdirSync(location, { recursive: true });
  const { RocksLevel } = require('@nxtedition/rocksdb') as {
    RocksLevel: new (location: string, options: object) => { handle: bigint };
  };
  try {
    const db = new RocksLevel(location, {
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
      createIfMissing: true,
      compaction: 'level',
      memtableMemoryBudget: 64 * 1024 * 1024,
    });
    const backend = await LevelBackend.open('rocksdb', db as never);
    backend.useWriter(new RocksWriter(db.handle));
    return new Store(backend);
  } catch (error) {
    const cause = (error as { cause?: Error }).cause;
    throw new Error(`cannot open RocksDB at ${location}: ${cause?.message ?? (error as Error).message}`);
  }
}
