import { readU64Key, u64Key } from '../kernel/storage/keys.js';
import type { WriteBatch } from '../kernel/storage/namespace.js';
import type { ChainTables } from './layouts.js';
import type { Receipt } from './receipts.js';
import type { Block } from './schemas.js';
import type { CommitCertificate } from '../sdk/block.js';
import type { Pacer } from './pacer.js';

const ARCHIVE = 'archive';
const HEAD = 'head';

/** The block store's namespaces (layouts in chain/layouts.ts). */
export type BlockNamespaces = Pick<ChainTables, 'blocks' | 'blockIndex' | 'commits' | 'meta' | 'transactions' | 'receipts'>;

export interface StoredTransaction {
  readonly raw: Uint8Array;
  readonly height: number;
  readonly index: number;
}

/** Blocks, their transactions and receipts on disk; writes go into the caller's (the block's) batch. */
export class BlockStore {
  constructor(private readonly ns: BlockNamespaces) {}

  async headHeight(): Promise<number | undefined> {
    const raw = await this.ns.meta.get(HEAD);
    return raw ? Number(readU64Key(raw)) : undefined;
  }

  async byHeight(height: number): Promise<Block | undefined> {
    const block = await this.ns.blocks.get(height);
    return block ? inFieldOrder(block) : undefined;
  }

  async byHash(hash: string): Promise<Block | undefined> {
    const height = await this.ns.blockIndex.get(hash);
    return height === undefined ? undefined : this.byHeight(height);
  }

  /** The certificate this node committed the block at `height` with (none for block 0). */
  async commit(height: number): Promise<CommitCertificate | undefined> {
    return this.ns.commits.get(height);
  }

  /** Replaces the head's certificate with one of more precommits (votes that came in after the decision). */
  async replaceCommit(certificate: CommitCertificate): Promise<void> {
    await this.ns.commits.putNow(certificate.height, certificate);
  }

  async transaction(hash: string): Promise<StoredTransaction | undefined> {
    const stored = await this.ns.transactions.get(hash);
    if (!stored) return undefined;
    const [raw, height, index] = stored;
    return { raw, height, index };
  }

  async receipt(hash: string): Promise<Receipt | undefined> {
    return this.ns.receipts.get(hash);
  }

  /** Whether this data dir keeps all history (it was run with the archive capability). */
  async archiveFlag(): Promise<boolean> {
    return (await this.ns.meta.get(ARCHIVE)) !== undefined;
  }

  async setArchiveFlag(on: boolean): Promise<void> {
    if (on) await this.ns.meta.putNow(ARCHIVE, new Uint8Array([1]));
    else await this.ns.meta.delNow(ARCHIVE);
  }

  /** Deletes the receipts of the block at `height` (past the history window); its transactions stay, for peers that sync. Returns how many. */
  async stagePruneReceipts(batch: WriteBatch, height: number): Promise<number> {
    const block = await this.byHeight(height);
    for (const hash of block?.transactions ?? []) this.ns.receipts.del(batch, hash);
    return block?.transactions.length ?? 0;
  }

  /** Adds the block with its commit certificate, transactions and receipts, and moves the head. */
  async stage(batch: WriteBatch, block: Block, commit: CommitCertificate | undefined, rawTransactions: readonly Uint8Array[], receipts: readonly Receipt[], pacer?: Pacer): Promise<void> {
    this.ns.blocks.put(batch, block.height, block);
    if (commit) this.ns.commits.put(batch, block.height, commit);
    this.ns.blockIndex.put(batch, block.hash, block.height);
    this.ns.meta.put(batch, HEAD, u64Key(block.height));
    for (let index = 0; index < rawTransactions.length; index++) {
      const hash = block.transactions[index]!;
      this.ns.transactions.put(batch, hash, [rawTransactions[index]!, block.height, index]);
      this.ns.receipts.put(batch, hash, receipts[index]!);
      await pacer?.step();
    }
  }
}

/** CBOR sorts map keys; give readers the fields in the documented order. */
function inFieldOrder(b: Block): Block {
  return {
    height: b.height,
    hash: b.hash,
    parentHash: b.parentHash,
    timestamp: b.timestamp,
    chainId: b.chainId,
    proposer: b.proposer,
    proposerKey: b.proposerKey,
    txRoot: b.txRoot,
    stateRoot: b.stateRoot,
    receiptRoot: b.receiptRoot,
    signature: b.signature,
    lastCommit: b.lastCommit,
    transactions: b.transactions,
  };
}
