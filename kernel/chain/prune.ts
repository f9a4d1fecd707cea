import { concatBytes } from '../../sdk/bytes.js';
import type { Logger } from '../log.js';
import { lockDataDir } from '../storage/data-dir-lock.js';
import { readU64Key, u64Key } from '../storage/keys.js';
import { openStore } from '../storage/open.js';
import { BlockStore } from './block-store.js';

const SEP = new Uint8Array([0]);
const EMPTY = new Uint8Array(0);
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
    // The chain's namespaces, claimed by their names as the chain plugin does (same prefixes).
    const ns = (name: string) => store.claim(name, 'prune');
    const blocks = new BlockStore({ blocks: ns('chain.blocks'), index: ns('chain.block-index'), meta: ns('chain.meta'), transactions: ns('chain.transactions'), receipts: ns('chain.receipts') });
    const history = ns('state.history');
    const prunable = ns('state.prunable');
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
      const block = await blocks.byHeight(height);
      receiptsDeleted += block?.transactions.length ?? 0;
      await blocks.stagePruneReceipts(batch, height);
      pending += block?.transactions.length ?? 0;
      await flush();
      if (height % 10_000 === 0) log.info({ height, cutoff }, 'pruning receipts');
    }

    // History keys are `name ‖ 0x00 ‖ u64 height`, in order: one key's versions are consecutive.
    let historyDeleted = 0;
    let name: Uint8Array | undefined;
    let versions: number[] = [];
    const settle = (): void => {
      if (!name) return;
      // Queries from the cutoff on need the newest version at or before it, and every later one.
      let keepFrom = 0;
      for (let i = 0; i < versions.length; i++) if (versions[i]! <= cutoff) keepFrom = i;
      for (let i = 0; i < keepFrom; i++) {
        batch.del(history, concatBytes(name, SEP, u64Key(versions[i]!)));
        historyDeleted++;
        pending++;
      }
      // The schedule a non-archive node keeps: each kept version goes once the window passes its successor.
      for (let i = keepFrom; i + 1 < versions.length; i++) {
        batch.put(prunable, concatBytes(u64Key(versions[i + 1]!), name, SEP, u64Key(versions[i]!)), EMPTY);
        pending++;
      }
    };
    for await (const [key] of history.entries()) {
      const sep = key.length - 9;
      const keyName = key.subarray(0, sep);
      if (!name || Buffer.compare(keyName, name) !== 0) {
        settle();
        await flush();
        name = Uint8Array.from(keyName);
        versions = [];
      }
      versions.push(Number(readU64Key(key, sep + 1)));
    }
    settle();
    await flush(true);
    await blocks.setArchiveFlag(false);
    return { head, oldestKept: cutoff, receiptsDeleted, historyDeleted };
  } finally {
    await store.close();
    lock.release();
  }
}
