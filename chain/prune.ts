import type { Logger } from '../kernel/log.js';
import { lockDataDir } from '../kernel/storage/data-dir-lock.js';
import { openStore } from '../kernel/storage/open.js';
import { BlockStore } from './block-store.js';
import { openChainLayouts } from './layouts.js';
import { windowArchivedHistory } from './state/world-state.js';

/** Writes per batch while pruning. */
const BATCH = 5_000;

export interface PruneResult {
  readonly head: number;
  readonly oldestKept: number;
  readonly receiptsDeleted: number;
  readonly historyDeleted: number;
}

/**
 * `svc-node prune`: turns an archive data dir into one that keeps `historyBlocks` blocks of receipts
 * and state history, like a node without `--receipt-archive`. Deletes the receipts of older blocks
 * and the state history no query inside the window can need, writes the pruning schedule an archive
 * never kept, and clears the archive flag. Blocks and transactions stay (peers sync from them).
 * Takes the data dir's lock, so it refuses to run beside a node.
 */
export async function pruneDataDir(dataDir: string, historyBlocks: number, log: Logger): Promise<PruneResult> {
  const lock = lockDataDir(dataDir);
  const store = await openStore('rocksdb', dataDir);
  try {
    // The chain's namespaces, claimed by their declared names as the chain plugin does (same prefixes).
    const ns = openChainLayouts((name) => store.claim(name, 'prune'));
    const blocks = new BlockStore(ns);
    const history = ns.stateHistory;
    const prunable = ns.statePrunable;
    const head = await blocks.headHeight();
    if (head === undefined) throw new Error(`--data-dir ${dataDir}: holds no chain to prune`);
    const cutoff = Math.max(0, head - historyBlocks);
    let batch = store.batch();
    let pending = 0;
    const flush = async (force = false): Promise<void> => {
      if (pending === 0 || (!force && pending < BATCH)) return;
      await batch.write();
      batch = store.batch();
      pending = 0;
    };

    let receiptsDeleted = 0;
    for (let height = 1; height < cutoff; height++) {
      const deleted = await blocks.stagePruneReceipts(batch, height);
      receiptsDeleted += deleted;
      pending += deleted;
      await flush();
      if (height % 10_000 === 0) log.info({ height, cutoff }, 'pruning receipts');
    }

    let historyDeleted = 0;
    for await (const write of windowArchivedHistory(history, cutoff)) {
      if ('drop' in write) {
        history.del(batch, write.drop);
        historyDeleted++;
      } else {
        prunable.put(batch, write.schedule, new Uint8Array(0));
      }
      pending++;
      await flush();
    }
    await flush(true);
    await blocks.setArchiveFlag(false);
    return { head, oldestKept: cutoff, receiptsDeleted, historyDeleted };
  } finally {
    await store.close();
    lock.release();
  }
}
