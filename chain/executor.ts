import type { Address } from '../sdk/address.js';
import type { Asset } from '../sdk/amount.js';
import type { SignedTransaction } from '../sdk/transaction.js';
import type { Logger } from '../kernel/log.js';
import { decode } from '../sdk/encoding.js';
import {
  isTxFailure,
  TxPostponed,
  type EndBlockContext,
  type BlockEnv,
  type TxContext,
  type TxOutcome,
} from './contract.js';
import { accountKey, decodeAccount, encodeAccount, type Account } from './state/accounts.js';
import { StateOverlay, type StateReader } from './state/overlay.js';
import type { PendingReceipt } from './receipts.js';
import type { RegisteredTxKind, TxKindRegistry } from './tx-kinds.js';
import type { Pacer } from './pacer.js';
import { creditAccount, debitAccount } from './balance-changes.js';
import { isPromise } from '../kernel/is-promise.js';
import { InBlock } from './block-env.js';
import {
  SYSTEM_TRANSACTIONS_SINCE,
  systemTransaction,
  type SystemCall,
  type SystemOutcome,
  type SystemTransaction,
} from './system-transactions.js';

/** Why a transaction can't be in a block at all (as opposed to being in it with a failed receipt). */
export class InvalidTransactionError extends Error {
  override name = 'InvalidTransactionError';
  constructor(
    readonly hash: string,
    readonly error: 'invalid_transaction' | 'nonce_too_low' | 'nonce_gap',
    reason: string,
  ) {
    super(reason);
  }
}

export interface ExecutionResult {
  readonly overlay: StateOverlay;
  readonly included: SignedTransaction[];
  /** The user transactions' receipts, then the system transactions' (from the rules version that has them). */
  readonly receipts: PendingReceipt[];
  /** What the end steps did to contracts, as system transactions (none before their rules version). */
  readonly system: SystemTransaction[];
  /** Transactions left out as invalid (only when not strict). */
  readonly rejected: InvalidTransactionError[];
}

/** Checks what makes a transaction includable against the state it would run on. Returns the kind's registration. */
export function checkIncludable(
  tx: SignedTransaction,
  state: StateReader,
  kinds: TxKindRegistry,
  env: Pick<BlockEnv, 'chainId' | 'rulesVersion'>,
): RegisteredTxKind {
  const { chainId } = env;
  if (tx.chainId !== chainId)
    throw new InvalidTransactionError(
      tx.hash,
      'invalid_transaction',
      `chain id ${tx.chainId} is not this chain's (${chainId})`,
    );
  const checked = kinds.check(tx, env.rulesVersion);
  if ('reason' in checked) throw new InvalidTransactionError(tx.hash, 'invalid_transaction', checked.reason);
  const nonce = decodeAccount(state.get(accountKey(tx.from))).nonce;
  if (tx.nonce < nonce)
    throw new InvalidTransactionError(
      tx.hash,
      'nonce_too_low',
      `nonce ${tx.nonce} is already used (account nonce is ${nonce})`,
    );
  if (tx.nonce > nonce)
    throw new InvalidTransactionError(tx.hash, 'nonce_gap', `nonce ${tx.nonce} is ahead of the account nonce ${nonce}`);
  return checked.kind;
}

/** Accounts and consensus state as a block's steps see them; writes only under the owner's prefix. */
class BlockScope extends InBlock implements EndBlockContext {
  constructor(
    protected readonly state: StateOverlay,
    env: BlockEnv,
    readonly owner: string,
    private readonly kinds: Pick<TxKindRegistry, 'mayWrite'>,
    private readonly system?: SystemRecords,
  ) {
    super(env);
  }

  recordSystemTransaction(call: SystemCall, outcome: SystemOutcome): string | undefined {
    if (!this.system) throw new Error('a transaction cannot record a system transaction: only an end-of-block step');
    if (this.rulesVersion < SYSTEM_TRANSACTIONS_SINCE) return undefined;
    const tx = systemTransaction(call, this.height);
    this.system.push({ tx, outcome });
    return tx.hash;
  }

  account(address: Address): Account {
    return decodeAccount(this.state.get(accountKey(address)));
  }

  /** An account that holds nothing (no assets, bonds or nonce: one the EVM deleted) is no key at all. */
  setAccount(address: Address, account: Account): void {
    if (
      account.omc === 0n &&
      account.ogt === 0n &&
      account.nonce === 0n &&
      Object.values(account.bonded).every((amount) => amount === 0n)
    )
      this.state.delete(accountKey(address));
    else this.state.set(accountKey(address), encodeAccount(account));
  }

  credit(address: Address, asset: Asset, amount: bigint): void {
    creditAccount(this, address, asset, amount);
  }

  debit(address: Address, asset: Asset, amount: bigint): void {
    debitAccount(this, address, asset, amount);
  }

  readState(key: string): Uint8Array | undefined {
    return this.state.get(key);
  }

  writeState(key: string, value: Uint8Array | undefined): void {
    if (!this.kinds.mayWrite(this.owner, key))
      throw new Error(
        `plugin "${this.owner}" may only write state keys under "${this.owner}/" (or of a plugin that names it in stateDelegates), not "${key}"`,
      );
    if (value === undefined) this.state.delete(key);
    else this.state.set(key, value);
  }
}

class Context extends BlockScope implements TxContext<unknown> {
  constructor(
    state: StateOverlay,
    env: BlockEnv,
    readonly tx: SignedTransaction,
    owner: string,
    kinds: Pick<TxKindRegistry, 'mayWrite'>,
    readonly deadline: number | undefined,
  ) {
    super(state, env, owner, kinds);
  }

  get payload(): unknown {
    return this.tx.payload;
  }
}

type SystemRecords = { tx: SystemTransaction; outcome: SystemOutcome }[];

/** The chain's block gas limit: a consensus parameter a plugin's genesis sets (`params/blockGasLimit`), none without it. */
export const BLOCK_GAS_LIMIT_KEY = 'params/blockGasLimit';

/** A bigint: past 2^53 a number would not hold it (a CBOR integer decodes to a bigint there). */
function blockGasLimit(state: StateReader): bigint | undefined {
  const raw = state.get(BLOCK_GAS_LIMIT_KEY);
  return raw ? BigInt(decode<number | bigint>(raw)) : undefined;
}

/**
 * Runs transactions in order on top of `state`. Each runs in its own overlay: on success its writes
 * join the block's; on failure only the nonce moves, and the receipt says why (a kind that returns
 * `failed` keeps its writes: the fees it paid). With `strict`, an invalid transaction rejects the
 * whole block (import); otherwise it is left out (production). Transactions that use gas share the
 * block gas limit: one whose gas limit no longer fits is left out, or rejects the block on import.
 * A producer's `deadline` (performance.now() ms) keeps the block's rhythm: once past it no further
 * transaction starts, and one still running then is left out (the first of a block always runs to
 * its end, so every block makes progress). With `finishMsPerTx`, the deadline is for the finished
 * block: no transaction starts once finishing the ones in (roots, receipts) would take past it at
 * that cost each. The block's end steps run after the last transaction unless `endBlock` is false.
 */
export async function executeTransactions(
  txs: readonly SignedTransaction[],
  env: BlockEnv,
  state: StateReader,
  kinds: TxKindRegistry,
  log: Logger,
  strict: boolean,
  pacer?: Pacer,
  {
    endBlock = true,
    deadline,
    finishMsPerTx = 0,
  }: { endBlock?: boolean; deadline?: number; finishMsPerTx?: number } = {},
): Promise<ExecutionResult> {
  if (strict && deadline !== undefined)
    throw new Error('a block being imported runs every transaction to its end: no deadline');
  const overlay = new StateOverlay(state);
  const included: SignedTransaction[] = [];
  const receipts: PendingReceipt[] = [];
  const rejected: InvalidTransactionError[] = [];
  const gasLimit = blockGasLimit(state);
  let gasUsed = 0;
  for (const tx of txs) {
    const pause = pacer?.step();
    if (pause) await pause;
    if (deadline !== undefined && included.length > 0 && performance.now() + included.length * finishMsPerTx > deadline)
      break;
    let kind;
    try {
      kind = checkIncludable(tx, overlay, kinds, env);
      const txGas = kind.spec.gasLimit?.(tx.payload);
      if (gasLimit !== undefined && txGas !== undefined && BigInt(gasUsed) + BigInt(txGas) > gasLimit)
        throw new InvalidTransactionError(
          tx.hash,
          'invalid_transaction',
          `its gas limit ${txGas} does not fit in what is left of the block gas limit (${gasLimit - BigInt(gasUsed)} of ${gasLimit})`,
        );
    } catch (error) {
      if (strict || !(error instanceof InvalidTransactionError)) throw error;
      rejected.push(error);
      continue;
    }
    const index = included.length;
    const bumpNonce = (target: StateOverlay): void => {
      const sender = decodeAccount(target.get(accountKey(tx.from)));
      sender.nonce += 1n;
      target.set(accountKey(tx.from), encodeAccount(sender));
    };
    const scratch = overlay.child();
    let outcome: TxOutcome | undefined;
    try {
      if (!kind.spec.managesNonce) bumpNonce(scratch);
      const returned = kind.spec.execute(
        new Context(scratch, env, tx, kind.owner, kinds, index > 0 ? deadline : undefined),
        kind.service(),
      );
      // biome-ignore lint/suspicious/noConfusingVoidType: execute may return nothing (see TxKind.execute).
      outcome = (isPromise<void | TxOutcome>(returned) ? await returned : returned) ?? undefined;
    } catch (error) {
      // Stopped at the producer's deadline: left out whole, and nothing after it starts.
      if (error instanceof TxPostponed && !strict) break;
      included.push(tx);
      bumpNonce(overlay);
      if (!isTxFailure(error))
        log.error({ err: error, tx: tx.hash, kind: tx.kind }, 'transaction kind threw; the transaction fails');
      const failure = isTxFailure(error)
        ? { name: error.error, reason: error.message }
        : { name: 'internal_error', reason: 'the transaction kind failed' };
      receipts.push({
        transactionHash: tx.hash,
        blockNumber: env.height,
        index,
        from: tx.from,
        kind: tx.kind,
        status: 'failed',
        error: failure,
      });
      continue;
    }
    included.push(tx);
    scratch.mergeInto(overlay);
    const receipt: PendingReceipt = {
      transactionHash: tx.hash,
      blockNumber: env.height,
      index,
      from: tx.from,
      kind: tx.kind,
      status: outcome?.failed ? 'failed' : 'success',
    };
    if (outcome?.failed) receipt.error = { name: outcome.failed.name, reason: outcome.failed.reason };
    if (outcome?.gasUsed !== undefined) {
      gasUsed += outcome.gasUsed;
      Object.assign(receipt, outcome.receipt, { gasUsed: outcome.gasUsed, cumulativeGasUsed: gasUsed });
    }
    receipts.push(receipt);
  }
  // End-of-block steps may be asynchronous (re-running a disputed job on a worker); they run one after another.
  // A replay of the transactions before a traced one stops short of them (endBlock false).
  const records: SystemRecords = [];
  if (endBlock)
    for (const hook of kinds.endBlockHooks) await hook.run(new BlockScope(overlay, env, hook.owner, kinds, records));
  const system = records.map((r) => r.tx);
  for (const [i, tx] of system.entries()) {
    const { outcome } = records[i]!;
    gasUsed += outcome.gasUsed;
    receipts.push({
      transactionHash: tx.hash,
      blockNumber: env.height,
      index: included.length + i,
      from: tx.from,
      kind: tx.kind,
      status: outcome.status,
      ...(outcome.error ? { error: { name: outcome.error.name, reason: outcome.error.reason } } : {}),
      gasUsed: outcome.gasUsed,
      cumulativeGasUsed: gasUsed,
      effectiveGasPrice: '0',
      logs: outcome.logs.map((log) => ({ address: log.address, topics: [...log.topics], data: log.data })),
    });
  }
  return { overlay, included, receipts, system, rejected };
}
