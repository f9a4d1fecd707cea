import { decode, encode } from '../../sdk/encoding.js';
import { fromHex } from '../../sdk/bytes.js';
import { readU64Key, textKey, u64Key } from '../storage/keys.js';
import type { Namespace, WriteBatch } from '../storage/namespace.js';
import type { Block } from './schemas.js';

const HEAD = textKey('head');

/**
 * Blocks on disk. Namespaces:
 * - `chain.blocks`: u64 height -> CBOR block
 * - `chain.block-index`: 32-byte hash -> u64 height
 * - `chain.meta`: "head" -> u64 height
 */
export class BlockStore {
  constructor(
    private readonly blocks: Namespace,
    private readonly index: Namespace,
    private readonly meta: Namespace,
  ) {}

  async headHeight(): Promise<number | undefined> {
    const raw = await this.meta.get(HEAD);
    return raw ? Number(readU64Key(raw)) : undefined;
  }

  async byHeight(height: number): Promise<Block | undefined> {
    const raw = await this.blocks.get(u64Key(height));
    return raw ? inFieldOrder(decode<Block>(raw)) : undefined;
  }

  async byHash(hash: string): Promise<Block | undefined> {
    const height = await this.index.get(fromHex(hash));
    return height ? this.byHeight(Number(readU64Key(height))) : undefined;
  }

  /** Adds the block and moves the head, in the caller's batch (which also carries the block's state). */
  stage(batch: WriteBatch, block: Block): void {
    batch.put(this.blocks, u64Key(block.height), encode(block));
    batch.put(this.index, fromHex(block.hash), u64Key(block.height));
    batch.put(this.meta, HEAD, u64Key(block.height));
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
