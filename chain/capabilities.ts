import type { Address } from '../sdk/address.js';
import type { KeyPair } from '../sdk/keys.js';
import type { SignedTransaction } from '../sdk/transaction.js';
import type { GenesisSpec } from './genesis.js';
import type { Receipt } from './receipts.js';
import type { Block } from './schemas.js';
import type { CertifiedBlock, Chain, ImportOptions } from './chain.js';
import type { CommitCertificate } from '../sdk/block.js';
import type { StateReader } from './state/overlay.js';
import type { BlockTag } from '../sdk/api.js';
import type { EnvelopeContext } from './ethereum-envelope.js';

/**
 * The few things most plugins need of the chain, as capabilities of their own (the chain plugin
 * provides each): a plugin `requires` what it calls, not the whole chain.
 */

/** Reading: the head, the genesis, consensus state at the head, receipts. (Whether the node is synced is the network's `sync-status`.) */
export interface ChainReader {
  readonly head: Block;
  readonly genesis: GenesisSpec;
  /** The network's chain id and EVM chain id: what decoding either envelope needs. */
  readonly envelope: EnvelopeContext;
  readonly state: StateReader & {
    /** Every key under a prefix with its value, in no particular order: a walk over the whole state, for rebuilding a view once, not per block. */
    entriesUnder(prefix: string): Iterable<[string, Uint8Array]>;
    /** The current value, or the newest before the key was deleted, as far as this node keeps history. */
    lastKnownValue(key: string): Promise<Uint8Array | undefined>;
    /** The oldest height whose state this node still answers for, the head being at `head` (0 on an archive node). */
    oldestAvailable(head: number): number;
  };
  /** The height a block tag names ("latest" and "finalized": the head; "earliest": 0). */
  heightOf(tag: BlockTag): number;
  /** The chain-rules version block `height` executes (or executed) under: the network's schedule. */
  rulesVersionAt(height: number): number;
  /** The state after a past block, for methods that take a `blockNumber` (throws `not_found` past the head; reads reject with `pruned` before the history window). */
  stateAt(height: number): (key: string) => Promise<Uint8Array | undefined>;
  getReceipt(hash: string): Promise<Receipt | undefined>;
  /** A transaction by hash: mined (with its block and index; kept for good) or pending. */
  getTransaction(hash: string): Promise<{ tx: SignedTransaction; height?: number; index?: number } | undefined>;
  /** The certificate a block was committed with here (undefined for block 0). */
  getCommit(height: number): Promise<CommitCertificate | undefined>;
}

export interface SubmitOptions {
  /** It came on the transactions topic, which relays it on its own. */
  readonly viaGossip?: boolean;
  /** A peer pushed it (pending transactions sent on connecting): its origin journaled it, this node does not. */
  readonly fromPeer?: boolean;
  /** A check of the decoded, verified transaction before it is admitted (throws the domain error that refuses it). */
  readonly accept?: (tx: SignedTransaction) => void;
}

/** Submitting transactions this node signs itself. */
export interface TxSubmitter {
  /** The nonce the next transaction of `address` should carry, counting pending ones. */
  nextNonce(address: Address): number;
  /**
   * Admits a signed transaction to the mempool (throws the domain error that says why not,
   * synchronously); resolves once it is durable in the node's journal: acknowledge it after that.
   */
  submit(tx: SignedTransaction): Promise<void>;
  /**
   * Admits a transaction a client signed, as raw bytes (decoded and verified off the main thread).
   * `accept` sees the decoded, verified transaction before the mempool does: it throws to refuse it.
   */
  submitRaw(raw: Uint8Array, options?: SubmitOptions): Promise<SignedTransaction>;
  isPending(hash: string): boolean;
}

/** What a block producer drives: the head, and producing the next block. */
export interface BlockProduction {
  readonly head: Block;
  readonly genesis: GenesisSpec;
  /** `executionBudgetMs`: how long transactions may keep starting (what does not fit waits for the next block). */
  produceBlock(key: KeyPair, timestamp: number, executionBudgetMs?: number): Promise<Block>;
  /** The earliest block time (unix ms) at which a plugin's end-of-block step has work due (a deadline); undefined for none. */
  nextDue(): number | undefined;
}

/** Taking the chain back to an earlier block: dev mode's revert (a network's chain never goes back). */
export interface ChainRewind {
  readonly head: Block;
  /** The blocks above `height` and their state go, the mempool empties (`chain:rewound` follows); the new head. */
  rewind(height: number): Promise<Block>;
}

/**
 * What the network layer drives: where the chain stands, checking and importing peers' blocks,
 * serving its own, and admitting and relaying transactions as raw bytes.
 */
export interface BlockImport {
  readonly head: Block;
  readonly genesisHash: string;
  /** The network's genesis (its chain-rules version goes into the status handshake). */
  readonly genesis: GenesisSpec;
  /** What is wrong with a block's header on its own, or undefined: checked before a gossiped block is believed. */
  headerProblem(block: Block): string | undefined;
  /** Verifies the block after the head by its commit certificate, then executes and commits it (throws `BlockRejectedError` with the failed check). */
  importBlock(
    block: Block,
    rawTransactions: readonly Uint8Array[],
    commit: CommitCertificate,
    options?: ImportOptions,
  ): Promise<Block>;
  /** A stored block with its raw transactions and certificate, as a syncing peer gets it. */
  blockWithTransactions(height: number): Promise<CertifiedBlock | undefined>;
  /** Admits a raw transaction (decoded and verified off the main thread); throws the domain error that says why not. */
  submitRaw(raw: Uint8Array, options?: SubmitOptions): Promise<SignedTransaction>;
  pendingSince(minAgeMs: number): Iterable<SignedTransaction>;
  pendingTransaction(hash: string): SignedTransaction | undefined;
  /** The bytes a transaction travels as. */
  rawTransaction(tx: SignedTransaction): Uint8Array;
}

/**
 * The capability a block-producing plugin provides (the validator): the network reads from the
 * enabled plugins whether this node produces blocks (it then counts as synced, and publishes its
 * blocks).
 */
export const BLOCK_PRODUCER = 'block-producer';

/** Reading blocks and transactions beyond the head (the EVM's Ethereum views): by height or hash, raw, replayed. */
export type BlockReader = Pick<
  Chain,
  | 'getBlock'
  | 'getBlockByHash'
  | 'blockHashAt'
  | 'getRawTransaction'
  | 'receiptOrPruned'
  | 'pendingTransaction'
  | 'pendingContent'
  | 'dropPending'
  | 'replayPrefix'
>;

/** The rules a consensus plugin (staking) sets on the chain: who may propose a block, and what makes one final. */
export type ConsensusRules = Pick<Chain, 'setProposerCheck' | 'setFinalityRules'>;

/** Taking the state for a snapshot, and beginning a new node's chain at one (state sync). */
export type StateSnapshots = Pick<
  Chain,
  'head' | 'genesisHeight' | 'captureState' | 'beginRestore' | 'restoreSnapshot' | 'abandonRestore'
>;

/** Keeping every receipt and historical state value (the archive capability). */
export type HistoryKeeping = Pick<Chain, 'enableArchive' | 'isArchive'>;

/** Everything the Ethereum JSON-RPC reads and submits through: the head and state, blocks beyond it, submission. */
export type ChainViews = ChainReader & BlockReader & TxSubmitter;

/** What a validator drives: the mempool, proposing, checking and committing blocks by consensus, the head's certificate, and its evidence transactions. */
export type ConsensusChain = Pick<
  Chain,
  | 'head'
  | 'genesis'
  | 'mempool'
  | 'getBlock'
  | 'getCommit'
  | 'nextNonce'
  | 'submit'
  | 'pendingTransaction'
  | 'rawTransaction'
  | 'produceBlock'
  | 'nextDue'
  | 'proposeBlock'
  | 'checkProposal'
  | 'decodeTransactions'
  | 'admissionOf'
  | 'getRawTransaction'
  | 'commitProposal'
  | 'improveHeadCommit'
  | 'settleSubmissionsWith'
>;
