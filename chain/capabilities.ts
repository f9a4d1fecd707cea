import type { Address } from '../sdk/address.js';
import type { KeyPair } from '../sdk/keys.js';
import type { SignedTransaction } from '../sdk/transaction.js';
import type { GenesisSpec } from './genesis.js';
import type { Receipt } from './receipts.js';
import type { Block } from './schemas.js';
import type { StateReader } from './state/overlay.js';

/**
 * The few things most plugins need of the chain, as capabilities of their own (the chain plugin
 * provides each): a plugin `requires` what it calls, not the whole chain.
 */

/** Reading: the head, the genesis, consensus state at the head, receipts, and whether the node is synced. */
export interface ChainReader {
  readonly head: Block;
  readonly genesis: GenesisSpec;
  readonly state: StateReader;
  getReceipt(hash: string): Promise<Receipt | undefined>;
  readonly synced: boolean;
  /** The highest block this node knows of: its head, or a peer's if higher. */
  readonly highestKnown: number;
}

/** Submitting transactions this node signs itself. */
export interface TxSubmitter {
  /** The nonce the next transaction of `address` should carry, counting pending ones. */
  nextNonce(address: Address): number;
  /** Admits a signed transaction to the mempool (throws the domain error that says why not). */
  submit(tx: SignedTransaction): void;
  isPending(hash: string): boolean;
}

/** What a block producer drives: the head, and producing the next block. */
export interface BlockProduction {
  readonly head: Block;
  readonly genesis: GenesisSpec;
  produceBlock(key: KeyPair, timestamp: number): Promise<Block>;
}

/**
 * The capability a block-producing plugin provides (the validator): the chain and the network read
 * from the enabled plugins whether this node produces blocks (it then counts as synced, and
 * publishes its blocks).
 */
export const BLOCK_PRODUCER = 'block-producer';
