import { decode, encode } from '../sdk/encoding.js';
import { fromHex } from '../sdk/bytes.js';
import { readU64Key, textKey, u64Key } from '../kernel/storage/keys.js';
import type { WriteBatch } from '../kernel/storage/namespace.js';
import type { openChainLayouts } from './layouts.js';
import type { Receipt } from './receipts.js';
import type { Block } from './schemas.js';
import type { Pacer } from '../kernel/pacer.js';

const ARCHIVE = textKey('archive');
const HEAD = textKey('head');

/** The block store's namespaces (layouts in chain/layouts.ts). */
export type BlockNamespaces = Pick<ReturnType<typeof openChainLayouts>, 'blocks' | 'blockIndex' | 'meta' | 'transactions' | 'receipts'>;

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
    const raw = await this.ns.blocks.get(u64Key(height));
    return raw ? inFieldOrder(decode<Block>(raw)) : undefined;
  }

  async byHash(hash: string): Promise<Block | undefined> {
    const height = await this.ns.blockIndex.get(fromHex(hash));
    return height ? this.byHeight(Number(readU64Key(height))) : undefined;
  }

  async transaction(hash: string): Promise<StoredTransaction | undefined> {
    const raw = await this.ns.transactions.get(fromHex(hash));
    if (!raw) return undefined;
    const [tx, height, index] = decode<[Uint8Array, number, number]>(raw);
    return { raw: tx, height, index };
  }

  async receipt(hash: string): Promise<Receipt | undefined> {
    const raw = await this.ns.receipts.get(fromHex(hash));
    return raw ? decode<Receipt>(raw) : undefined;
  }

  /** Whether this data dir keeps all history (it was run with the archive capability). */
  async archiveFlag(): Promise<boolean> {
    return (await this.ns.meta.get(ARCHIVE)) !== undefined;
  }

  async setArchiveFlag(on: boolean): Promise<void> {
    if (on) await this.ns.meta.put(ARCHIVE, new Uint8Array([1]));
    else await this.ns.meta.del(ARCHIVE);
  }

  /** Deletes the receipts of the block at `height` (past the history window); its transactions stay, for peers that sync. Returns how many. */
  async stagePruneReceipts(batch: WriteBatch, height: number): Promise<number> {
    const block = await this.byHeight(height);
    for (const hash of block?.transactions ?? []) batch.del(this.ns.receipts, fromHex(hash));
    return block?.transactions.length ?? 0;
  }

  /** Adds the block with its transactions and receipts, and moves the head. */
  async stage(batch: WriteBatch, block: Block, rawTransactions: readonly Uint8Array[], receipts: readonly Receipt[], pacer?: Pacer): Promise<void> {
    batch.put(this.ns.blocks, u64Key(block.height), encode(block));
    batch.put(this.ns.blockIndex, fromHex(block.hash), u64Key(block.height));
    batch.put(this.ns.meta, HEAD, u64Key(block.height));
    for (let index = 0; index < rawTransactions.length; index++) {
      const hash = fromHex(block.transactions[index]!);
      batch.put(this.ns.transactions, hash, encode([rawTransactions[index]!, block.height, index]));
      batch.put(this.ns.receipts, hash, encode(receipts[index]!));
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
    transactions: b.transactions,
  };
}
