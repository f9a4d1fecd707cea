import { BlockRejectedError } from '../chain/chain.js';
import type { BlockImport, BlockReader } from '../chain/capabilities.js';
import { type BlockArchiveHeader, readBlockArchive } from '../chain/backup/block-archive.js';
import { mergeConfig, type RawConfig } from '../kernel/config/load.js';
import type { Logger } from '../kernel/log.js';
import { catalog } from './catalog.js';
import { resolveConfig } from './config.js';
import { SvcNode } from './node.js';

/** Why an import stopped: a block that does not verify, a file of another chain or cut short. */
export class ImportError extends Error {
  override name = 'ImportError';
}

export interface ImportBlocksResult {
  /** The data dir's head before and after. */
  readonly from: number;
  readonly head: number;
  readonly imported: number;
}

const PROGRESS_EVERY_MS = 2_000;

/**
 * `svc-node import-blocks`: the blocks of an archive (`export-blocks`) into a data dir, each verified
 * as a peer's block is — its certificate, its transactions, and executing it again to its roots — by a
 * node of the data dir's network run on loopback with no peers (`config` as `svc-node start` takes it:
 * its network, genesis, history settings). Blocks the data dir holds already are skipped if they are
 * the same; the first block that does not verify stops the import, the ones before it kept.
 */
export async function importBlocks(config: RawConfig, file: string, log: Logger): Promise<ImportBlocksResult> {
  const resolved = resolveConfig(
    mergeConfig(config, {
      role: 'full',
      dev: false,
      rpc: { bind: '127.0.0.1:0' },
      p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [] },
      chain: { txJournal: false },
    }),
  );
  if (resolved.node.storage !== 'rocksdb') throw new ImportError('import-blocks writes a data dir: storage rocksdb');
  const node = await SvcNode.create({ config: resolved, catalog, log: log.child({ module: 'import' }) });
  await node.start();
  try {
    const chain = node.service<BlockImport>('block-import');
    const from = chain.head.height;
    let header: BlockArchiveHeader | undefined;
    let imported = 0;
    let lastReport = performance.now();
    const started = lastReport;
    for await (const entry of readBlockArchive(file)) {
      if ('header' in entry) {
        header = entry.header;
        if (header.genesisHash !== chain.genesisHash)
          throw new ImportError(
            `${file} holds blocks of chain ${header.chainId} with genesis ${header.genesisHash}; this data dir's network (${chain.genesis.chainId}) has genesis ${chain.genesisHash}: give the --network and --genesis the blocks were made on`,
          );
        if (header.from > chain.head.height + 1)
          throw new ImportError(
            `${file} starts at block ${header.from}, and this data dir's head is ${chain.head.height}: import the blocks before it first`,
          );
        log.info({ file, ...header, head: chain.head.height }, `importing blocks ${header.from} to ${header.to}`);
        continue;
      }
      const { block, raws, commit } = entry.block;
      if (block.height <= chain.head.height) {
        const held = await node.service<BlockReader>('block-reader').getBlock(block.height);
        if (held?.hash !== block.hash)
          throw new ImportError(
            `block ${block.height} of ${file} is ${block.hash}; this data dir holds ${held?.hash ?? 'none'} there: another chain`,
          );
        continue;
      }
      if (block.height !== chain.head.height + 1)
        throw new ImportError(
          `${file} has block ${block.height} after ${chain.head.height}: a block is missing (record ${entry.index})`,
        );
      try {
        await chain.importBlock(block, raws, commit, { catchingUp: true });
      } catch (error) {
        const why = error instanceof BlockRejectedError ? error.message : `${(error as Error).message}`;
        throw new ImportError(
          `block ${block.height} does not verify (${why}); the data dir holds the blocks up to ${chain.head.height}`,
        );
      }
      imported++;
      const now = performance.now();
      if (now - lastReport >= PROGRESS_EVERY_MS) {
        lastReport = now;
        const rate = imported / ((now - started) / 1000);
        const left = (header?.to ?? block.height) - block.height;
        log.info(
          { height: block.height, to: header?.to, imported, perSecond: Math.round(rate) },
          `imported ${imported} blocks, at block ${block.height} of ${header?.to ?? '?'} (${Math.round(rate)}/s, about ${Math.ceil(left / rate)} s left)`,
        );
      }
    }
    if (!header) throw new ImportError(`${file} holds no header`);
    return { from, head: chain.head.height, imported };
  } catch (error) {
    if ((error as Error).name === 'BlockArchiveError')
      throw new ImportError(
        `${(error as Error).message}; the data dir holds the blocks up to ${node.service<BlockImport>('block-import').head.height}`,
      );
    throw error;
  } finally {
    await node.stop();
  }
}
