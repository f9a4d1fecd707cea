import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { lockDataDir } from '../../kernel/storage/data-dir-lock.js';
import { openStore } from '../../kernel/storage/open.js';
import { BlockStore } from '../block-store.js';
import { openChainLayouts } from '../layouts.js';
import { type ArchivedBlock, writeBlockArchive } from './block-archive.js';

/** A request `svc-node export-blocks` cannot carry out: a data dir with no chain, a range outside it. */
export class ExportError extends Error {
  override name = 'ExportError';
}

export interface ExportBlocksResult {
  readonly from: number;
  readonly to: number;
  readonly count: number;
}

/**
 * `svc-node export-blocks`: blocks `from` to `to` (default: all of them, 1 to the head) of a stopped
 * node's data dir, with their raw transactions and certificates, into a block archive
 * (chain/backup/block-archive.ts) that `import-blocks` re-executes. Takes the data dir's lock, so it
 * refuses to run beside a node; never writes to the data dir.
 */
export async function exportBlocks(
  dataDir: string,
  range: { from?: number; to?: number },
  out: string,
): Promise<ExportBlocksResult> {
  // RocksDB's CURRENT file: a data dir without one holds no database (opening it would make one).
  if (!existsSync(join(dataDir, 'db', 'CURRENT'))) throw new ExportError(`--data-dir ${dataDir}: holds no chain`);
  const lock = lockDataDir(dataDir);
  const store = await openStore('rocksdb', dataDir);
  try {
    const blocks = new BlockStore(openChainLayouts((name) => store.claim(name, 'export-blocks')));
    const head = await blocks.headHeight();
    const genesis = await blocks.byHeight(0);
    if (head === undefined || !genesis) throw new ExportError(`--data-dir ${dataDir}: holds no chain`);
    const from = range.from ?? 1;
    const to = range.to ?? head;
    if (from < 1 || from > head) throw new ExportError(`--from ${from}: the chain has blocks 1 to ${head}`);
    if (to < from || to > head) throw new ExportError(`--to ${to}: expected ${from} to ${head} (the head)`);
    if (existsSync(out)) throw new ExportError(`--out ${out}: the file exists; name a new one`);
    async function* stored(): AsyncGenerator<ArchivedBlock> {
      for (let height = from; height <= to; height++) {
        const block = await blocks.byHeight(height);
        const commit = await blocks.commit(height);
        if (!block || !commit) throw new ExportError(`block ${height} is not stored whole: the database is damaged`);
        const raws = await Promise.all(
          block.transactions.map(async (hash) => {
            const tx = await blocks.transaction(hash);
            if (!tx) throw new ExportError(`block ${height} lists transaction ${hash}, which is not stored`);
            return tx.raw;
          }),
        );
        yield { block, raws, commit };
      }
    }
    const count = await writeBlockArchive(
      out,
      { chainId: genesis.chainId, genesisHash: genesis.hash, from, to },
      stored(),
    );
    return { from, to, count };
  } finally {
    await store.close();
    lock.release();
  }
}
