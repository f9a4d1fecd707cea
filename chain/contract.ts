import type { SystemCall, SystemOutcome } from './system-transactions.js';
import type { Static, TSchema } from 'typebox';
import type { Address } from '../sdk/address.js';
import type { Asset } from '../sdk/amount.js';
import type { DomainErrorName } from '../sdk/errors.js';
import type { SignedTransaction } from '../sdk/transaction.js';
import type { CommitCertificate } from '../sdk/block.js';
import type { AnyPlugin } from '../kernel/plugin.js';
import type { Account } from './state/accounts.js';
import type { ReceiptDetails } from './receipts.js';

/**
 * What the chain adds to the plugin contract: transaction kinds, end-of-block steps and genesis
 * entries a plugin may declare, and the chain's events. Plugin authors import all of it from
 * `svc-node/plugin`, like the kernel's part.
 */
declare module '../kernel/plugin.js' {
  interface SvcEvents {
    /** A block (produced or imported) and all its state are committed. */
    'chain:block': {
      height: number;
      hash: string;
      timestamp: number;
      transactions: number;
      block: CommittedBlock;
      receipts: readonly CommittedReceipt[];
      rawTransactions: readonly Uint8Array[];
      commit: CommitCertificate;
    };
    /**
     * A block is decided (produced, or imported with its certificate) and executed, and its write is
     * under way: `read` gives its state. `chain:block` follows once the write is done. For work that
     * may start before the write (a provider running the jobs the block assigned it); anything that
     * must survive a crash waits for `chain:block`.
     */
    'chain:decided': { height: number; timestamp: number; read: (key: string) => Uint8Array | undefined };
    /**
     * The chain went back to block `height` from `from` (dev mode's revert): the blocks above it and
     * their state are gone, the mempool is empty. Views kept beside the chain drop what they hold of
     * the undone blocks; the next block is `height + 1` again.
     */
    'chain:rewound': { height: number; from: number };
    /**
     * A node that held only its genesis now begins at block `height`, its state restored from a
     * snapshot (state sync): views kept beside the chain start from there.
     */
    'chain:restored': { height: number };
    /** A transaction entered the mempool; `viaGossip`: from the transactions topic (gossip relays it; nobody publishes it again). */
    'chain:pendingTransaction': {
      hash: string;
      from: string;
      kind: string;
      nonce: number;
      transaction: SignedTransaction;
      viaGossip: boolean;
    };
    /**
     * At start, the journal's acknowledged transactions are back in the mempool (`pending`);
     * `superseded` ones lost their nonce to another transaction mined while the node was down.
     */
    'chain:journalReplayed': { pending: readonly SignedTransaction[]; superseded: readonly SignedTransaction[] };
  }

  // Type parameters as in the kernel's declaration: the chain's hooks see the plugin's service.
  interface PluginDefinition<C extends TSchema, Svc> {
    /** Transaction kinds this plugin executes, built with the given factory so handlers see the service's type. */
    txKinds?(kind: TxKindFactory<Svc>): readonly TxKind[];
    /**
     * State transitions at the end of every block, after its transactions (e.g. releasing bonds whose
     * unbonding period is over). Deterministic: every node re-executes it when importing the block.
     * May be asynchronous (work on a worker thread, such as re-running a disputed job); the block
     * waits for it.
     */
    endBlock?(ctx: EndBlockContext, service: Svc): void | Promise<void>;
    /**
     * A second end-of-block phase, after every plugin's `endBlock` (in plugin order again): for work
     * that must see what the block's end steps settled, whatever the plugins' order — the EVM's calls
     * back to contracts whose jobs or deals settled in this block.
     */
    afterEndBlock?(ctx: EndBlockContext, service: Svc): void | Promise<void>;
    /**
     * The block time (unix ms) at which this plugin's end-of-block step next has work that waits for
     * time to pass (a deadline), read from the head's state; undefined for none. A producer that makes
     * blocks only when transactions come (dev mode's automine) makes one then, so a job's or a deal's
     * steps do not wait for a transaction that may never come. Not a rule of the chain.
     */
    nextDue?(read: (key: string) => Uint8Array | undefined, service: Svc): number | undefined;
    /**
     * Consensus state this plugin puts in block 0, from the network's genesis parameters (keys under
     * `<plugin name>/` or `params/`). Read without running the plugin: every node of the network must
     * compute the same genesis.
     */
    genesis?(network: GenesisParameters): Iterable<readonly [string, Uint8Array]>;
    /**
     * What this plugin's state becomes in the genesis of a network made from an export (`svc-node
     * export-state`, `init --from-state`): keys to drop or rewrite in `state`, in place. Without it,
     * every key is carried as it is. Read without running the plugin, like `genesis`.
     */
    exportGenesis?(state: Map<string, Uint8Array>, from: ExportPoint): void;
    /**
     * Plugins whose transaction kinds and end-of-block steps may write this plugin's state keys on its
     * behalf: a host that runs this plugin's rules inside its own transactions (the EVM running this
     * plugin's precompiles, and calling contracts back for it). Nobody else may.
     */
    readonly stateDelegates?: readonly string[];
    /**
     * Consensus parameters (`params/<name>`) this plugin owns: its genesis sets them and only its own
     * transaction kinds and end steps may change them (dev mode's edits of the block gas limit). A
     * parameter has one owner.
     */
    readonly params?: readonly string[];
  }
}

/**
 * What a genesis hook reads: the network's name, the genesis file's parameters (devnet: none), the
 * genesis validator and the accounts of block 0 (what they hold and have bonded).
 */
export interface GenesisParameters {
  readonly network: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly validator: string;
  readonly validatorKey: string;
  readonly accounts: readonly GenesisAccountView[];
}

/** Where an export is taken, and what the network made of it keeps. */
export interface ExportPoint {
  /** The block whose state is exported: the new network's genesis block has this height. */
  readonly height: number;
  /**
   * The new network has validators of its own (`svc-node init --from-state`), not the exported one's:
   * the staking rules give the old validators their stakes back and leave no set behind.
   */
  readonly newValidators: boolean;
}

/** An account of block 0 as genesis hooks see it: base units per asset, and OGT bonded per purpose. */
export interface GenesisAccountView {
  readonly address: string;
  readonly omc: bigint;
  readonly ogt: bigint;
  readonly bonded?: Readonly<Record<string, bigint>>;
}

/** A committed block as events carry it (the chain's wire shape). */
export interface CommittedBlock {
  readonly height: number;
  readonly hash: string;
  readonly parentHash: string;
  readonly timestamp: number;
  readonly chainId: string;
  readonly proposer: string;
  readonly proposerKey: string;
  readonly txRoot: string;
  readonly stateRoot: string;
  readonly receiptRoot: string;
  readonly signature: string;
  readonly lastCommit: CommitCertificate | null;
  readonly transactions: readonly string[];
}

export interface CommittedReceipt extends Readonly<ReceiptDetails> {
  readonly cumulativeGasUsed?: number;
  readonly transactionHash: string;
  readonly blockNumber: number;
  readonly blockHash: string;
  readonly index: number;
  readonly from: string;
  readonly kind: string;
  readonly status: 'success' | 'failed';
  readonly error?: { name: string; reason: string };
}

/** The parent block's certificate as a block carries it: its height and the validators whose precommits it holds. */
export interface LastCommit {
  readonly height: number;
  readonly signers: readonly string[];
}

/** The block a transaction, an end-of-block step, a contract call or a precompile runs in: one shape everywhere. */
export interface BlockEnv {
  readonly chainId: string;
  readonly height: number;
  /** Block timestamp, unix ms. */
  readonly timestamp: number;
  /** The previous block's hash: a seed every node knows before the block is made (e.g. for tie-breaks). */
  readonly parentHash: string;
  /** Who signed the parent block's certificate, as this block carries it (null in block 1): validators' liveness. */
  readonly lastCommit: LastCommit | null;
  /** Who proposes the block (the EVM's coinbase: priority fees go to it). */
  readonly proposer: Address;
  /**
   * The chain-rules version the block executes under (the network's schedule at its height): where a
   * rule differs between versions, the code branches on this, never on a release's own constant.
   */
  readonly rulesVersion: number;
}

/** What a transaction kind's `execute` may read and change; all of it is undone if the transaction fails. */
export interface TxContext<P = unknown> extends BlockEnv {
  readonly tx: SignedTransaction;
  readonly payload: P;
  account(address: Address): Account;
  setAccount(address: Address, account: Account): void;
  credit(address: Address, asset: Asset, amount: bigint): void;
  /** Throws TxFailure `insufficient_funds` when the balance can't cover it. */
  debit(address: Address, asset: Asset, amount: bigint): void;
  /** Any consensus state key. */
  readState(key: string): Uint8Array | undefined;
  /** Only keys under `<plugin name>/`, or under the prefix of a plugin that names this one among its `stateDelegates`. */
  writeState(key: string, value: Uint8Array | undefined): void;
  /**
   * When the block's producer wants this transaction done (performance.now() ms), if it does: a
   * kind whose work may run long (the EVM) stops at it and throws TxPostponed, and the transaction
   * waits for a later block. Undefined when the transaction must run to its end (a block being
   * imported, the first transaction of a block).
   */
  readonly deadline?: number;
}

/**
 * Thrown by a kind that stopped at its TxContext's deadline: the transaction is left out of the
 * block being produced (nothing of it is kept, its nonce does not move) and stays pending.
 */
export class TxPostponed extends Error {
  override name = 'TxPostponed';
}

/**
 * What a plugin's end-of-block step sees: the block, accounts and consensus state, with the same
 * write rule as transactions (its own `<plugin name>/` keys). Runs after the block's transactions,
 * on every node, so it must be deterministic.
 */
export type BlockContext = Omit<TxContext<never>, 'tx' | 'payload'>;

/** What an end-of-block step sees: the block's context, and a record of the calls it makes to contracts. */
export interface EndBlockContext extends BlockContext {
  /**
   * Records a call the chain made to a contract in this step as a system transaction (after the
   * block's user transactions, with a receipt): its hash. Undefined in a block of a rules version
   * before system transactions, which records nothing of it (the block replays as it was made).
   */
  recordSystemTransaction(call: SystemCall, outcome: SystemOutcome): string | undefined;
}

/** Why a payload fails its kind's schema: the field (a JSON pointer without the leading slash), the schema keyword that failed, the message. */
export interface PayloadProblem {
  readonly field: string;
  readonly keyword: string;
  readonly reason: string;
}

/** Per gas, in base units: the most a transaction pays, and the most of that its proposer gets. */
export interface TxFees {
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

export interface TxKindSpec<Svc, P extends TSchema> {
  /** `<plugin>.<action>`, or `transfer` for the core. */
  readonly kind: string;
  readonly summary: string;
  readonly payload: P;
  /** The first chain-rules version the kind exists in: in a block of an earlier version it is unknown. */
  readonly sinceRulesVersion?: number;
  /** Who may sign it: a reason to refuse, or undefined. Checked at mempool entry and on import. */
  authorize?(tx: SignedTransaction, payload: Static<P>, service: Svc): string | undefined;
  /** What the sender must hold, for the mempool's funds check. */
  debits?(payload: Static<P>, service: Svc): { asset: Asset; amount: bigint }[];
  /**
   * Checks the payload on its own before the transaction enters the mempool (throw a TxFailure: its
   * error becomes the submitter's domain error), so what could never execute is refused at submission.
   */
  admit?(payload: Static<P>, service: Svc): void;
  /**
   * The domain error a payload that fails its schema is refused with, when not `invalid_transaction`
   * (the jobs answer the way their own methods do: `invalid_params`, or `job_rejected` over a limit).
   */
  payloadRefusal?(problem: PayloadProblem): {
    readonly error: DomainErrorName;
    readonly data?: Readonly<Record<string, unknown>>;
  };
  /**
   * How the payload reads in the `svc_` views (its bytes already hex): where the kind keeps a field in
   * another form than the `svc_` side answers in, e.g. an account as `0x…` (the `svc_` side says `svc1…`).
   * Without it, the payload as it is.
   */
  view?(payload: Readonly<Record<string, unknown>>): Record<string, unknown>;
  /**
   * Gas the transaction may use at most, for a chain with a block gas limit (`params/blockGasLimit`):
   * a block producer leaves out what no longer fits, and a block whose transactions may use more is
   * invalid. Kinds without gas weigh nothing.
   */
  gasLimit?(payload: Static<P>): number | bigint;
  /**
   * What it pays per gas, for the mempool's replacement rule: a pending transaction is replaced by one
   * of the same sender and nonce whose fee cap and priority fee are both at least 10% higher. Kinds
   * without fees are never replaced.
   */
  fees?(payload: Static<P>, service: Svc): TxFees;
  /**
   * The kind moves the sender's nonce itself when it succeeds or returns `failed` (the EVM does, as
   * part of running a transaction); the chain still moves it when `execute` throws.
   */
  readonly managesNonce?: boolean;
  /**
   * Check the signer, check inputs, mutate state, return; throw TxFailure to fail the transaction
   * with nothing changed but the nonce. May be asynchronous, and may return an outcome (gas used,
   * receipt details, or a failure whose writes stay: a reverted EVM call still pays for its gas).
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a kind's execute may end without returning, as plain functions do.
  execute(ctx: TxContext<Static<P>>, service: Svc): void | TxOutcome | Promise<void | TxOutcome>;
}

/** What a transaction kind's `execute` may report beyond success. */
export interface TxOutcome {
  /** The transaction failed, but what it wrote stays (fees it paid); the receipt says why. */
  readonly failed?: { readonly name: string; readonly reason: string };
  /** Gas it used, counted against the block gas limit (at most its `gasLimit`). */
  readonly gasUsed?: number;
  /** Kind-specific receipt fields (logs, a created contract, the price paid), committed by the receipt root. */
  readonly receipt?: ReceiptDetails;
}

/** A transaction kind with its types erased, as the registry holds it. */
export interface TxKind {
  readonly kind: string;
  readonly summary: string;
  readonly payload: TSchema;
  readonly sinceRulesVersion?: number;
  authorize?(tx: SignedTransaction, payload: unknown, service: unknown): string | undefined;
  debits?(payload: unknown, service: unknown): { asset: Asset; amount: bigint }[];
  admit?(payload: unknown, service: unknown): void;
  payloadRefusal?(problem: PayloadProblem): {
    readonly error: DomainErrorName;
    readonly data?: Readonly<Record<string, unknown>>;
  };
  view?(payload: Readonly<Record<string, unknown>>): Record<string, unknown>;
  gasLimit?(payload: unknown): number | bigint;
  fees?(payload: unknown, service: unknown): TxFees;
  readonly managesNonce?: boolean;
  // biome-ignore lint/suspicious/noConfusingVoidType: a kind's execute may end without returning, as plain functions do.
  execute(ctx: TxContext<unknown>, service: unknown): void | TxOutcome | Promise<void | TxOutcome>;
}

export type TxKindFactory<Svc> = <P extends TSchema>(spec: TxKindSpec<Svc, P>) => TxKind;

/** Fails the transaction being executed: a failed receipt with this error, and no state change but the nonce. */
export class TxFailure extends Error {
  override name = 'TxFailure';
  constructor(
    readonly error: DomainErrorName,
    reason: string,
    /** Details a client can act on (`data` beside `reason` when it is refused at submission), e.g. a minimum. */
    readonly data: Record<string, unknown> = {},
  ) {
    super(reason);
  }
}

/**
 * A TxFailure, also one from another copy of this module (a plugin package that brings its own
 * `svc-node`): recognised by its shape, not its class.
 */
export function isTxFailure(error: unknown): error is TxFailure {
  return (
    error instanceof Error && error.name === 'TxFailure' && typeof (error as { error?: unknown }).error === 'string'
  );
}

/** A plugin's transaction kinds, read from its definition without running it. */
export function pluginTxKinds(plugin: AnyPlugin): readonly TxKind[] {
  const txKinds = plugin.txKinds as ((factory: (spec: unknown) => TxKind) => readonly TxKind[]) | undefined;
  return txKinds?.((spec) => spec as TxKind) ?? [];
}
