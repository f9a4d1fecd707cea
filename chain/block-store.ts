import { readU64Key, u64Key } from '../kernel/storage/keys.js';
import type { WriteBatch } from '../kernel/storage/namespace.js';
import type { ChainTables } from './layouts.js';
import type { Receipt } from './receipts.js';
import type { Block } from './schemas.js';
import type { CommitCertificate } from '../sdk/block.js';
import type { Pacer } from './pacer.js';
import type { SignedTransaction } from '../sdk/transaction.js';
import { accountsOf, accountTransactionKey } from './account-transactions.js';
import { decodeSystemTransaction, systemAsSigned } from './system-transactions.js';
import type { Address } from '../sdk/address.js';

const ARCHIVE = 'archive';
const HEAD = 'head';
const ACCOUNT_INDEX_FROM = 'account-index-from';
const RULES_VERSION = 'rules-version';
const BASE = 'base';
const RESTORING = 'restoring';

/** A block as it is committed: with its certificate, its transactions (decoded and as they arrived) and their receipts. */
export interface CommittedBlock {
  readonly block: Block;
  readonly commit: CommitCertificate | undefined;
  readonly txs: readonly SignedTransaction[];
  readonly raws: readonly Uint8Array[];
  /** The user transactions' receipts, then the system transactions'. */
  readonly receipts: readonly Receipt[];
  /** The system transactions' stored bytes, in the order of `block.systemTransactions`. */
  readonly systemRaws?: readonly Uint8Array[];
}

/** Every transaction hash of a block: the user ones, then the system ones. */
export const allTransactions = (block: Pick<Block, 'transactions' | 'systemTransactions'>): readonly string[] =>
  block.systemTransactions ? [...block.transactions, ...block.systemTransactions] : block.transactions;

/** A page of an account's transactions, newest first. */
export interface AccountTransactionPage {
  readonly entries: { readonly hash: string; readonly height: number; readonly index: number }[];
  /** Where the next page starts, or undefined at the end. */
  readonly next: { readonly height: number; readonly index: number } | undefined;
}

/** The block store's namespaces (layouts in chain/layouts.ts). */
export type BlockNamespaces = Pick<
  ChainTables,
  'blocks' | 'blockIndex' | 'commits' | 'meta' | 'transactions' | 'receipts' | 'accountTransactions' | 'ancestorHashes'
>;

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

  /** The chain-rules version the data dir was written under (undefined: before versions were recorded). */
  async rulesVersion(): Promise<number | undefined> {
    const raw = await this.ns.meta.get(RULES_VERSION);
    return raw ? Number(readU64Key(raw)) : undefined;
  }

  stageRulesVersion(batch: WriteBatch, version: number): void {
    this.ns.meta.put(batch, RULES_VERSION, u64Key(version));
  }

  /**
   * The block a state-synced node began from (its state restored from a snapshot of it): no block
   * below it is held whole here. Undefined: the node has every block from the genesis.
   */
  async base(): Promise<number | undefined> {
    const raw = await this.ns.meta.get(BASE);
    return raw ? Number(readU64Key(raw)) : undefined;
  }

  /**
   * Writes the block a snapshot was taken of as the head and base (its header and certificate: its
   * transactions are not held), the hashes of the blocks before it, and where the account index starts.
   */
  stageBase(
    batch: WriteBatch,
    block: Block,
    commit: CommitCertificate,
    ancestors: readonly { readonly height: number; readonly hash: string }[],
  ): void {
    this.ns.blocks.put(batch, block.height, block);
    this.ns.commits.put(batch, block.height, commit);
    this.ns.blockIndex.put(batch, block.hash, block.height);
    for (const { height, hash } of ancestors) this.ns.ancestorHashes.put(batch, height, hash);
    this.ns.meta.put(batch, HEAD, u64Key(block.height));
    this.ns.meta.put(batch, BASE, u64Key(block.height));
    this.ns.meta.put(batch, ACCOUNT_INDEX_FROM, u64Key(block.height + 1));
    this.clearRestoring(batch);
  }

  /**
   * The snapshot height a restore is writing the state of, if one began and did not finish: its
   * writes are not the chain's state until the restore's last batch (which clears this) lands.
   */
  async restoring(): Promise<number | undefined> {
    const raw = await this.ns.meta.get(RESTORING);
    return raw ? Number(readU64Key(raw)) : undefined;
  }

  /** Marks a restore of the state of block `height` as begun: written before any of its state. */
  async markRestoring(height: number): Promise<void> {
    await this.ns.meta.putNow(RESTORING, u64Key(height));
  }

  clearRestoring(batch: WriteBatch): void {
    this.ns.meta.del(batch, RESTORING);
  }

  /** The hash of a block below a state-synced node's base, if it fetched it. */
  ancestorHash(height: number): Promise<string | undefined> {
    return this.ns.ancestorHashes.get(height);
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
    const hashes = block ? allTransactions(block) : [];
    for (const hash of hashes) this.ns.receipts.del(batch, hash);
    return hashes.length;
  }

  /**
   * The first height whose transactions are in the account index: 0 for a chain this version made;
   * a data dir from before the index existed has it from the block after its head at the upgrade.
   */
  async accountIndexFrom(): Promise<number> {
    const raw = await this.ns.meta.get(ACCOUNT_INDEX_FROM);
    if (raw) return Number(readU64Key(raw));
    const from = ((await this.headHeight()) ?? -1) + 1;
    await this.ns.meta.putNow(ACCOUNT_INDEX_FROM, u64Key(from));
    return from;
  }

  /** An account's transactions, newest first, `limit` at a time, below `before` when given. */
  async accountTransactions(
    address: string,
    limit: number,
    before?: { height: number; index: number },
  ): Promise<AccountTransactionPage> {
    const prefix = accountTransactionKey.of(address);
    const range = before
      ? { prefix, lt: accountTransactionKey.before(address, before.height, before.index) }
      : { prefix };
    const entries: { hash: string; height: number; index: number }[] = [];
    for await (const [key, hash] of this.ns.accountTransactions.entries({ ...range, reverse: true, limit: limit + 1 }))
      entries.push({ hash, height: key.height, index: key.index });
    const more = entries.length > limit ? entries.pop() : undefined;
    return {
      entries,
      next: more && entries.length > 0 ? { height: entries.at(-1)!.height, index: entries.at(-1)!.index } : undefined,
    };
  }

  /**
   * Deletes the blocks above `height` up to `head` with everything stored of them (certificates,
   * hash index, transactions, receipts, account index entries) and makes `height` the head: dev
   * mode's revert. `decode` gives a stored transaction's accounts.
   */
  async stageRewind(
    batch: WriteBatch,
    height: number,
    head: number,
    decode: (raw: Uint8Array) => SignedTransaction,
  ): Promise<void> {
    for (let at = head; at > height; at--) {
      const block = await this.byHeight(at);
      if (!block) continue;
      for (const [index, hash] of block.transactions.entries()) {
        const stored = await this.transaction(hash);
        const receipt = await this.receipt(hash);
        if (stored)
          for (const address of accountsOf(decode(stored.raw), receipt))
            this.ns.accountTransactions.del(batch, { address, height: at, index });
        this.ns.transactions.del(batch, hash);
        this.ns.receipts.del(batch, hash);
      }
      for (const [i, hash] of (block.systemTransactions ?? []).entries()) {
        const stored = await this.transaction(hash);
        if (stored)
          for (const address of systemAccounts(stored.raw, block.chainId))
            this.ns.accountTransactions.del(batch, { address, height: at, index: block.transactions.length + i });
        this.ns.transactions.del(batch, hash);
        this.ns.receipts.del(batch, hash);
      }
      this.ns.blocks.del(batch, at);
      this.ns.commits.del(batch, at);
      this.ns.blockIndex.del(batch, block.hash);
    }
    this.ns.meta.put(batch, HEAD, u64Key(height));
  }

  /** Adds the block with its commit certificate, transactions, receipts and account index entries, and moves the head. */
  async stage(
    batch: WriteBatch,
    { block, commit, txs, raws, receipts, systemRaws }: CommittedBlock,
    pacer?: Pacer,
  ): Promise<void> {
    this.ns.blocks.put(batch, block.height, block);
    if (commit) this.ns.commits.put(batch, block.height, commit);
    this.ns.blockIndex.put(batch, block.hash, block.height);
    this.ns.meta.put(batch, HEAD, u64Key(block.height));
    // The genesis block (the only one without a certificate): the account index starts with the chain.
    if (!commit) this.ns.meta.put(batch, ACCOUNT_INDEX_FROM, u64Key(block.height));
    for (let index = 0; index < txs.length; index++) {
      const hash = block.transactions[index]!;
      this.ns.transactions.put(batch, hash, [raws[index]!, block.height, index]);
      this.ns.receipts.put(batch, hash, receipts[index]!);
      for (const address of accountsOf(txs[index]!, receipts[index]))
        this.ns.accountTransactions.put(batch, { address, height: block.height, index }, hash);
      const pause = pacer?.step();
      if (pause) await pause;
    }
    for (const [i, hash] of (block.systemTransactions ?? []).entries()) {
      const index = txs.length + i;
      this.ns.transactions.put(batch, hash, [systemRaws![i]!, block.height, index]);
      this.ns.receipts.put(batch, hash, receipts[index]!);
      // A contract's callbacks are among its transactions, as the explorer's account page lists them.
      for (const address of systemAccounts(systemRaws![i]!, block.chainId))
        this.ns.accountTransactions.put(batch, { address, height: block.height, index }, hash);
    }
  }
}

/** The accounts a system transaction names: the precompile that made the call and the contract it called. */
const systemAccounts = (raw: Uint8Array, chainId: string): Address[] =>
  accountsOf(systemAsSigned(decodeSystemTransaction(raw), chainId));

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
    ...(b.systemTransactions ? { systemTransactions: b.systemTransactions } : {}),
  };
}
